// Lines per series over the periods (a balance at the end of each period),
// with a dot per value, and the frame's axis, tooltip and keyboard.
import { ChartFrame, colorOf, type ChartSeries } from './ChartFrame.js'
import { extent, linePath } from './line.js'

export function LineChart({
  label,
  categories,
  series,
  currency,
}: {
  label: string
  categories: readonly string[]
  series: readonly ChartSeries[]
  currency?: string | undefined
}) {
  // Numbers for the geometry only; the tooltip and the table show the exact text.
  const numbers = series.map((s) => s.values.map((v) => (v == null ? null : Number(v))))
  const [min, max] = extent(numbers)
  return (
    <ChartFrame
      label={label}
      categories={categories}
      series={series}
      currency={currency}
      min={min}
      max={max}
      plot={({ band, y, active }) =>
        series.map((s, n) => {
          const points = (numbers[n] ?? []).map((v, i): [number, number] | null =>
            v === null ? null : [band.center(i), y(v)],
          )
          return (
            <g key={s.name} style={{ color: colorOf(s.color) }}>
              <path class="line" d={linePath(points)} />
              {points.map((p, i) =>
                p === null ? null : (
                  <circle
                    key={i}
                    class="dot"
                    cx={p[0]}
                    cy={p[1]}
                    r={active === i ? 5 : points.length > 40 ? 0 : 3}
                  />
                ),
              )}
            </g>
          )
        })
      }
    />
  )
}
