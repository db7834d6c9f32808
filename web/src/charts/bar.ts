// Stacked bars that diverge from zero: in each category the positive values of
// the series stack upwards and the negative ones downwards, so income and
// spending (or several label values) share one axis without cancelling out.
// Pure: values in, extents and segments (in value units) out.

export interface Segment {
  series: number
  category: number
  /** The segment spans [from, to] in value units; from is nearer zero. */
  from: number
  to: number
}

export interface Stack {
  segments: Segment[]
  /** Lowest and highest stacked value over all categories (0 included). */
  min: number
  max: number
}

/** `values[series][category]`, as numbers for geometry only. */
export function stackDiverging(values: readonly (readonly number[])[]): Stack {
  const segments: Segment[] = []
  let min = 0
  let max = 0
  const categories = Math.max(0, ...values.map((v) => v.length))
  for (let category = 0; category < categories; category++) {
    let up = 0
    let down = 0
    values.forEach((row, series) => {
      const value = row[category] ?? 0
      if (value > 0) {
        segments.push({ series, category, from: up, to: up + value })
        up += value
      } else if (value < 0) {
        segments.push({ series, category, from: down, to: down + value })
        down += value
      }
    })
    max = Math.max(max, up)
    min = Math.min(min, down)
  }
  return { segments, min, max }
}
