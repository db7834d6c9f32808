// SQLite's index of amounts (migration 0018): each amount's bucket (its
// decade and first two digits), then the row's search document number, then
// the amount as a double. Amounts arrive in no order, so an index keyed by the
// amount itself took every imported row on a random page; new rows take
// numbers above every one in use (migration 0015), so keyed by bucket and
// number they land at the end of their bucket, on pages an import keeps warm.
// A range of amounts reads the buckets it spans and tests the double from the
// index (docs/performance.md, "The amount index").
//
// The bucket is monotonic in the double: a < b gives bucket(a) <= bucket(b).
// The two digits are held to 10–99 and a decade's 90 buckets follow the one
// before, so where log10 rounds at a power of ten and puts a double in the
// decade below, its bucket is off by one at most: a search widens its buckets
// by one either side (narrow.ts). So `bucket(amount)` within the bounds'
// buckets is implied by `amount` within the bounds, and only lets the index
// find the rows. The bounds go through the same SQL as the rows.

/** A double's bucket, as SQL over `x` (an expression; it is repeated). Zero is 0, positives > 0, negatives < 0. */
export function amountBucketSql(x: string): string {
  const magnitude = (v: string) => {
    const decade = `floor(log10(${v}))`
    return `((${decade} + 400) * 90 + min(99, max(10, floor(${v} / pow(10, ${decade} - 1)))) - 10)`
  }
  return `cast(case when ${x} > 0 then ${magnitude(x)} when ${x} < 0 then -${magnitude(`-${x}`)} else 0 end as integer)`
}
