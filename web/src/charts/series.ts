// What a chart draws: named rows of exact amounts, one per category (period).

/** One named row of exact amounts, one per category (null: no value there). */
export interface ChartSeries {
  name: string
  /** 1–8: which of the --chart-N colours. */
  color: number
  values: readonly (string | null)[]
}

/** A row's exact total, shown in the tooltip and the table (not drawn). */
export interface ChartTotal {
  label: string
  values: readonly (string | null)[]
}
