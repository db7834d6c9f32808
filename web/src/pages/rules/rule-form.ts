// The rule editor's form, as plain data: label rows to a labels object,
// extension text to a JSON object (keeping each value's JSON type, and refusing
// a number JSON cannot carry exactly), and the body POST/PUT /rules take.

export interface LabelRow {
  key: string
  value: string
}

export interface RuleDraft {
  name: string
  query: string
  labels: LabelRow[]
  extensions: string
  enabled: boolean
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string }

/** The labels of the non-blank rows; a value without a key is a mistake worth saying. */
export function labelsOf(rows: readonly LabelRow[]): Parsed<Record<string, string>> {
  const labels: Record<string, string> = {}
  for (const [index, row] of rows.entries()) {
    const key = row.key.trim()
    if (key === '' && row.value === '') continue
    if (key === '') return { ok: false, error: `Label ${index + 1} has a value but no key.` }
    const canonical = key.toLowerCase()
    if (canonical in labels) return { ok: false, error: `Label key "${canonical}" is repeated.` }
    labels[canonical] = row.value
  }
  return { ok: true, value: labels }
}

// A JSON number token outside a string.
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** Number literals of a JSON text that a double would change (more than 15 significant digits). */
function inexactNumbers(text: string): string[] {
  const found: string[] = []
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
      continue
    }
    if (c === '"') {
      inString = true
      continue
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i
      const match = NUMBER.exec(text)
      if (!match) continue
      const token = match[0]
      const mantissa = token.replace(/^-/, '').replace(/[eE].*$/, '')
      const significant = mantissa.replace('.', '').replace(/^0+/, '').replace(/0+$/, '')
      if (significant.length > 15 || !Number.isFinite(Number(token))) found.push(token)
      i += token.length - 1
    }
  }
  return found
}

/** The extensions text as an object; blank text is `{}`. */
export function extensionsOf(text: string): Parsed<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return {
      ok: false,
      error: `Extensions are not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'Extensions must be a JSON object: {"tax.deductible": true}.' }
  }
  const inexact = inexactNumbers(text)
  if (inexact.length > 0) {
    return {
      ok: false,
      error: `${inexact[0]} has more digits than a JSON number keeps exactly; write it as a string ("${inexact[0]}").`,
    }
  }
  return { ok: true, value: value as Record<string, unknown> }
}

/** The extensions of a saved rule, as the editor shows them. */
export function extensionsText(extensions: Record<string, unknown>): string {
  return Object.keys(extensions).length === 0 ? '' : JSON.stringify(extensions, null, 2)
}

/** Label rows of a saved rule, with one blank row to type into when it has none. */
export function labelRows(labels: Record<string, string>): LabelRow[] {
  const rows = Object.entries(labels).map(([key, value]) => ({ key, value }))
  return rows.length > 0 ? rows : [{ key: '', value: '' }]
}

/** Two drafts say the same rule (blank label rows and JSON layout aside). */
export function sameRule(a: RuleDraft, b: RuleDraft): boolean {
  const canonical = (d: RuleDraft) => {
    const labels = labelsOf(d.labels)
    const extensions = extensionsOf(d.extensions)
    return JSON.stringify([
      d.name,
      d.query,
      labels.ok ? labels.value : d.labels,
      extensions.ok ? extensions.value : d.extensions,
      d.enabled,
    ])
  }
  return canonical(a) === canonical(b)
}
