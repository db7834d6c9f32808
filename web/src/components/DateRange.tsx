// The From/To pair of a page's filters: two date inputs over `since` and `until`
// (inclusive days, as the API reads them), kept in the page's filters.

export interface DateRangeValue {
  since: string
  until: string
}

export function DateRange<F extends DateRangeValue>({
  filters,
  onChange,
}: {
  filters: F
  onChange: (next: F) => void
}) {
  return (
    <>
      <label>
        From
        <input
          aria-label="From"
          type="date"
          value={filters.since}
          onChange={(e) => onChange({ ...filters, since: e.currentTarget.value })}
        />
      </label>
      <label>
        To
        <input
          aria-label="To"
          type="date"
          value={filters.until}
          onChange={(e) => onChange({ ...filters, until: e.currentTarget.value })}
        />
      </label>
    </>
  )
}
