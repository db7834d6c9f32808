// The nesting bound of client JSON (docs/decisions.md "Bounded input"). Every
// door (HTTP bodies, MCP messages and tool arguments) refuses JSON nested deeper
// than MAX_JSON_DEPTH with a 400 naming the limit, before anything recursive
// (JSON.stringify, validators, clients reading the value back) sees it. Both
// checks here are loops, never recursion, so they are safe on any input.

/** Arrays and objects nested inside one another, counting the outermost. */
export const MAX_JSON_DEPTH = 64

export const JSON_DEPTH_DETAIL = `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`

/** The index of the quote that closes the JSON string opening at `open` (or the text's end). */
export function closingQuote(text: string, open: number): number {
  let i = open + 1
  while (i < text.length && text.charCodeAt(i) !== 0x22 /* " */) {
    if (text.charCodeAt(i) === 0x5c /* \ */) i++
    i++
  }
  return i
}

/** True when JSON text nests `[`/`{` deeper than `max` (brackets inside strings do not count). */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 0x22 /* " */) {
      i = closingQuote(text, i)
    } else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) {
      if (++depth > max) return true
    } else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) {
      depth--
    }
  }
  return false
}

/** True when a parsed value nests arrays and objects deeper than `max`. */
export function jsonValueTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 0 }]
  while (stack.length > 0) {
    const { item, depth } = stack.pop()!
    if (item === null || typeof item !== 'object') continue
    if (depth + 1 > max) return true
    for (const child of Object.values(item)) stack.push({ item: child, depth: depth + 1 })
  }
  return false
}
