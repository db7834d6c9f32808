// The rule editor's form, as plain data: label rows to a labels object,
// extension text to a JSON object (keeping each value's JSON type, and refusing
// a number JSON cannot carry exactly), and the body POST/PUT /rules take.

import { checkExtensionsText, numberNotes } from '../../components/extensions-json.js'

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

/** The extensions text as an object; blank text is `{}`. */
export function extensionsOf(text: string): Parsed<Record<string, unknown>> {
  if (text.trim() === '') return { ok: true, value: {} }
  const checked = checkExtensionsText(text)
  if (!checked.ok) return { ok: false, error: checked.message }
  // The rule's body is built from the parsed object, so a number a double cannot
  // hold would be rounded on the way: refuse it rather than send another value.
  const unkept = numberNotes(text).find((note) => note.storedAs === null)
  if (unkept) {
    return {
      ok: false,
      error: `${unkept.literal} has more digits than a JSON number keeps exactly; write it as a string ("${unkept.literal}").`,
    }
  }
  return { ok: true, value: checked.value }
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
