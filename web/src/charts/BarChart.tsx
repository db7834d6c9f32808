// Stacked bars per period, diverging from zero (income up, spending down; or
// one segment per label value), with the frame's axis, tooltip and keyboard.
import { stackDiverging } from './bar.js'
import { ChartFrame, colorOf, type ChartSeries, type ChartTotal } from './ChartFrame.js'

export function BarChart({
  label,
  categories,
  series,
  total,
  currency,
}: {
  label: string
  categories: readonly string[]
  series: readonly ChartSeries[]
  total?: ChartTotal | undefined
  currency?: string | undefined
}) {
  // Numbers for the geometry only; the tooltip and the table show the exact text.
  const stack = stackDiverging(series.map((s) => s.values.map((v) => (v == null ? 0 : Number(v)))))
  return (
    <ChartFrame
      label={label}
      categories={categories}
      series={series}
      total={total}
      currency={currency}
      min={stack.min}
      max={stack.max}
      plot={({ band, y, active }) =>
        stack.segments.map((segment) => {
          const y0 = y(segment.from)
          const y1 = y(segment.to)
          return (
            <rect
              key={`${segment.series}:${segment.category}`}
              class={active === null || active === segment.category ? 'bar' : 'bar dim'}
              x={band.x(segment.category)}
              y={Math.min(y0, y1)}
              width={Math.max(1, band.bar)}
              height={Math.max(1, Math.abs(y1 - y0))}
              style={{ fill: colorOf(series[segment.series]?.color ?? 1) }}
            />
          )
        })
      }
    />
  )
}
