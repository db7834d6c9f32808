// Go-style duration strings ("500ms", "1h30m", "1.5s"), as the config file and the
// settings API carry them. Values stay strings in Config; consumers call parseDuration.

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu; Go accepts both
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

// One "<number><unit>" element; the unit is whatever letters follow the number.
const ELEMENT = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/

/** Parses a duration like "10s" or "1h30m" into milliseconds. "0" is the only unitless value. */
export function parseDuration(text: string): number {
  function fail(why: string): never {
    throw new Error(`invalid duration ${JSON.stringify(text)}: ${why}`)
  }
  if (text === '') fail('empty')
  let rest = text
  if (rest.startsWith('-')) fail('must not be negative')
  if (rest.startsWith('+')) rest = rest.slice(1)
  if (rest === '0') return 0
  if (rest === '') fail('missing number')

  let total = 0
  while (rest !== '') {
    const match = ELEMENT.exec(rest)
    if (!match) fail(`unexpected ${JSON.stringify(rest)}`)
    const [element, number = '', unit = ''] = match
    if (unit === '') fail(`missing unit (e.g. "${number}s"; units: ns, us, ms, s, m, h)`)
    const scale = UNIT_MS[unit]
    if (scale === undefined)
      fail(`unknown unit ${JSON.stringify(unit)} (units: ns, us, ms, s, m, h)`)
    total += Number(number) * scale
    rest = rest.slice(element.length)
  }
  if (!Number.isFinite(total)) fail('too large')
  return total
}
