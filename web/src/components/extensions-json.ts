// The extensions editor's text (SPEC 2.3): checked on the client before it is
// sent, and sent as the very text typed (client.ts rawBody), never through
// JSON.parse and back, which would round 12345678901234567890 silently.

/** A JSON object's text, or why it is not one. */
export function checkExtensionsText(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, message: `Extensions are not valid JSON: ${(error as Error).message}` }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      message: 'Extensions are a JSON object: { "tax.deductible": true, … } ({} clears them).',
    }
  }
  return { ok: true, value: value as Record<string, unknown> }
}

/** The request body around the person's own text, unchanged. */
export function extensionsBody(text: string): string {
  return `{"extensions":${text}}`
}

/** Canonical (sign, digits, exponent) of a number literal, to compare values without floats. */
function canonical(literal: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal)
  if (!m) return literal
  const digits = (m[2] ?? '') + (m[3] ?? '')
  let exponent = Number(m[4] ?? 0) - (m[3] ?? '').length
  const trimmed = digits.replace(/^0+/, '')
  if (trimmed === '') return '0'
  const significant = trimmed.replace(/0+$/, '')
  exponent += trimmed.length - significant.length
  return `${m[1]}${significant}e${exponent}`
}

export interface NumberNote {
  literal: string
  /** How the service will keep it, or null when it cannot keep it at all. */
  storedAs: string | null
}

/**
 * Number literals (outside strings) that will not read back as written. JSON
 * numbers are values: 1.10 is kept as 1.1; one no double holds exactly
 * (12345678901234567890) is refused by the service. Either way, a string keeps
 * the text.
 */
export function numberNotes(text: string): NumberNote[] {
  const notes: NumberNote[] = []
  const number = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '"') {
      // Skip the string, minding escapes.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++
      continue
    }
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      number.lastIndex = i
      const match = number.exec(text)
      if (!match) continue
      const literal = match[0]
      i += literal.length - 1
      const stored = JSON.stringify(Number(literal))
      if (stored === literal) continue
      const exact = canonical(stored) === canonical(literal)
      notes.push({ literal, storedAs: exact ? stored : null })
    }
  }
  return notes
}
