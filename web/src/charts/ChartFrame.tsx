// What every chart shares: it measures its own width (so that text stays
// readable on a phone), draws the value axis and the period labels, and makes
// each period a point a person can reach by mouse or keyboard (one tab stop,
// arrow keys between periods) to read its exact amounts in a tooltip.
import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { groupDigits, plural } from '../components/format.js'
import { Money } from '../components/Money.js'
import { bands, labelEvery, linearScale, niceTicks, type Bands } from './scale.js'
import type { ChartSeries, ChartTotal } from './series.js'
import './charts.css'

export type { ChartSeries, ChartTotal }

export interface Geometry {
  width: number
  height: number
  band: Bands
  /** Value to y pixel. */
  y: (value: number) => number
  top: number
  bottom: number
  active: number | null
}

export const colorOf = (n: number): string => `var(--chart-${((n - 1) % 8) + 1})`

/** Tables of more rows than this start folded. */
export const LONG_TABLE = 40

const HEIGHT = 260
const MARGIN = { top: 12, right: 12, bottom: 26 }
const CHAR = 6.6 // px per character of an 11px label, for the margins

function describe(
  category: string,
  series: readonly ChartSeries[],
  total: ChartTotal | undefined,
  i: number,
  currency: string | undefined,
): string {
  const unit = currency ? ` ${currency}` : ''
  const parts = series
    .filter((s) => s.values[i] != null)
    .map((s) => `${s.name} ${groupDigits(s.values[i] ?? '')}${unit}`)
  const sum = total?.values[i]
  if (total && sum != null) parts.push(`${total.label} ${groupDigits(sum)}${unit}`)
  return `${category}: ${parts.length ? parts.join('; ') : 'nothing'}`
}

export function ChartFrame({
  label,
  categories,
  series,
  total,
  currency,
  min,
  max,
  plot,
}: {
  label: string
  categories: readonly string[]
  series: readonly ChartSeries[]
  total?: ChartTotal | undefined
  currency?: string | undefined
  /** The lowest and highest value drawn (numbers for geometry only). */
  min: number
  max: number
  plot: (geometry: Geometry) => ComponentChildren
}) {
  const box = useRef<HTMLDivElement>(null)
  const svg = useRef<SVGSVGElement>(null)
  const [width, setWidth] = useState(720)
  const [active, setActive] = useState<number | null>(null)
  const [focus, setFocus] = useState(Math.max(0, categories.length - 1))

  useEffect(() => {
    const element = box.current
    if (!element) return
    const measure = () => setWidth(Math.max(240, Math.floor(element.clientWidth)))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  useEffect(() => setFocus((f) => Math.min(f, Math.max(0, categories.length - 1))), [categories])

  const ticks = niceTicks(min, max, 5)
  const tickTexts = ticks.labels
  const left = Math.ceil(Math.max(...tickTexts.map((t) => t.length)) * CHAR) + 10
  const top = MARGIN.top
  const bottom = HEIGHT - MARGIN.bottom
  const right = width - MARGIN.right
  const y = linearScale(ticks.domain, [bottom, top])
  const band = bands(categories.length, [left, right])
  const longest = Math.max(1, ...categories.map((c) => c.length))
  const every = labelEvery(categories.length, band.step, longest * CHAR + 8)

  const moveTo = (i: number) => {
    const next = Math.max(0, Math.min(categories.length - 1, i))
    setFocus(next)
    setActive(next)
    svg.current?.querySelector<SVGRectElement>(`rect.hit[data-i="${next}"]`)?.focus()
  }
  const onKey = (event: KeyboardEvent, i: number) => {
    const to =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? i + 1
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? i - 1
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? categories.length - 1
              : null
    if (to === null) return
    event.preventDefault()
    moveTo(to)
  }

  const shown = active !== null && active < categories.length ? active : null
  const tipLeft = shown === null ? 0 : band.center(shown)
  return (
    <div class="chart" ref={box}>
      <svg
        ref={svg}
        width={width}
        height={HEIGHT}
        viewBox={`0 0 ${width} ${HEIGHT}`}
        role="group"
        aria-label={`${label}. Use the arrow keys to move between periods.`}
      >
        {shown !== null ? (
          <rect
            class="active-band"
            x={band.center(shown) - band.step / 2}
            y={top}
            width={band.step}
            height={bottom - top}
          />
        ) : null}
        <g class="axis" aria-hidden="true">
          {ticks.values.map((value, i) => (
            <g key={value}>
              <line class="grid-line" x1={left} x2={right} y1={y(value)} y2={y(value)} />
              <text x={left - 6} y={y(value)} dy="0.32em" text-anchor="end">
                {tickTexts[i]}
              </text>
            </g>
          ))}
          <line class="zero" x1={left} x2={right} y1={y(0)} y2={y(0)} />
          {categories.map((category, i) =>
            i % every === 0 ? (
              <text key={category} x={band.center(i)} y={bottom + 17} text-anchor="middle">
                {category}
              </text>
            ) : null,
          )}
        </g>
        <g class="plot" aria-hidden="true">
          {plot({ width, height: HEIGHT, band, y, top, bottom, active: shown })}
        </g>
        {categories.map((category, i) => (
          <rect
            key={category}
            class="hit"
            data-i={i}
            x={band.center(i) - band.step / 2}
            y={top}
            width={band.step}
            height={bottom - top}
            tabIndex={i === focus ? 0 : -1}
            role="img"
            aria-label={describe(category, series, total, i, currency)}
            onMouseEnter={() => setActive(i)}
            onMouseLeave={() => setActive(null)}
            onFocus={() => {
              setFocus(i)
              setActive(i)
            }}
            onBlur={() => setActive(null)}
            onKeyDown={(event) => onKey(event, i)}
          />
        ))}
      </svg>
      {shown !== null ? (
        <div
          class={`chart-tip ${tipLeft > width / 2 ? 'left' : 'right'}`}
          style={{ left: `${tipLeft}px`, top: `${top}px` }}
          aria-hidden="true"
        >
          <strong>{categories[shown]}</strong>
          <table>
            <tbody>
              {series.map((s) =>
                s.values[shown] == null ? null : (
                  <tr key={s.name}>
                    <th scope="row">
                      <span class="swatch" style={{ background: colorOf(s.color) }} />
                      {s.name}
                    </th>
                    <td class="num">
                      <Money amount={s.values[shown] ?? ''} currency={currency} />
                    </td>
                  </tr>
                ),
              )}
              {total && total.values[shown] != null ? (
                <tr class="total">
                  <th scope="row">{total.label}</th>
                  <td class="num">
                    <Money amount={total.values[shown] ?? ''} currency={currency} />
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  )
}

/** The legend under a chart: a swatch and a name per series. */
export function Legend({ series }: { series: readonly Pick<ChartSeries, 'name' | 'color'>[] }) {
  return (
    <ul class="legend-list" aria-label="Legend">
      {series.map((s) => (
        <li key={s.name}>
          <span class="swatch" style={{ background: colorOf(s.color) }} aria-hidden="true" />
          {s.name}
        </li>
      ))}
    </ul>
  )
}

/** The same numbers as the chart, as a table: what a screen reader (and a test) reads. */
export function ChartTable({
  caption,
  categoryLabel,
  categories,
  series,
  total,
  currency,
}: {
  caption: string
  categoryLabel: string
  categories: readonly string[]
  series: readonly ChartSeries[]
  total?: ChartTotal | undefined
  currency?: string | undefined
}) {
  return (
    // A long table (weeks over years) starts folded so the next chart stays near.
    <details class="chart-table" open={categories.length <= LONG_TABLE}>
      <summary>Table ({plural(categories.length, 'row')})</summary>
      <div class="table-scroll">
        <table>
          <caption>
            {caption}
            {currency ? ` (${currency})` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">{categoryLabel}</th>
              {series.map((s) => (
                <th scope="col" class="num" key={s.name}>
                  {s.name}
                </th>
              ))}
              {total ? (
                <th scope="col" class="num">
                  {total.label}
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {categories.map((category, i) => (
              <tr key={category}>
                <th scope="row">{category}</th>
                {series.map((s) => (
                  <td class="num" key={s.name}>
                    {s.values[i] == null ? '—' : <Money amount={s.values[i] ?? ''} />}
                  </td>
                ))}
                {total ? (
                  <td class="num">
                    {total.values[i] == null ? '—' : <Money amount={total.values[i] ?? ''} />}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  )
}
