// The [[csv.folders]] entries of SPEC 1.3: their types and their validation. Problems
// carry a path such as '[1].mapping.delimtr' so the message names the exact key.

import { isTable, typeName, ValueProblem } from './problem.js'

export type CsvColumn = string | number

export interface CsvMapping {
  has_header: boolean
  delimiter: string
  /** Header name, or 0-based index; null means auto-detect. */
  date_column: CsvColumn | null
  amount_column: CsvColumn | null
  debit_column: CsvColumn | null
  credit_column: CsvColumn | null
  description_column: CsvColumn | null
  payee_column: CsvColumn | null
  memo_column: CsvColumn | null
  /** Reference-date layout; null means try common formats. */
  date_format: string | null
  /** The files' text encoding, as a WHATWG label the platform's TextDecoder knows. */
  encoding: string
}

export interface CsvFolder {
  name: string
  backend: 'local' | 'drive'
  /** Directory to scan (local backend). */
  path: string | null
  /** Drive folder id (drive backend). */
  folder_id: string | null
  account: string
  /** Institution name; defaults to the account. */
  org: string
  currency: string
  mapping: CsvMapping
}

const FOLDER_KEYS = [
  'name',
  'backend',
  'path',
  'folder_id',
  'account',
  'org',
  'currency',
  'mapping',
]
const COLUMN_KEYS = [
  'date_column',
  'amount_column',
  'debit_column',
  'credit_column',
  'description_column',
  'payee_column',
  'memo_column',
] as const
const MAPPING_KEYS = ['has_header', 'delimiter', 'date_format', 'encoding', ...COLUMN_KEYS]

/** Validates the csv.folders value and fills each folder's defaults. */
export function checkCsvFolders(value: unknown): CsvFolder[] {
  if (!Array.isArray(value)) {
    throw new ValueProblem(`expected an array of folder tables, got ${typeName(value)}`)
  }
  const folders = value.map((entry, i) => checkFolder(entry, `[${i}]`))
  const seen = new Set<string>()
  for (const [i, folder] of folders.entries()) {
    const name = folder.name.trim().toLowerCase()
    if (seen.has(name)) {
      throw new ValueProblem(`duplicate folder name ${JSON.stringify(folder.name)}`, `[${i}].name`)
    }
    seen.add(name)
  }
  return folders
}

function checkFolder(entry: unknown, at: string): CsvFolder {
  const table = asTable(entry, at)
  rejectUnknown(table, FOLDER_KEYS, at)
  const backend = optString(table, 'backend', at) ?? 'local'
  if (backend !== 'local' && backend !== 'drive') {
    throw new ValueProblem(
      `expected local or drive, got ${JSON.stringify(backend)}`,
      `${at}.backend`,
    )
  }
  const folder: CsvFolder = {
    name: reqString(table, 'name', at),
    backend,
    path: optString(table, 'path', at),
    folder_id: optString(table, 'folder_id', at),
    account: reqString(table, 'account', at),
    org: '',
    currency: optString(table, 'currency', at) ?? 'USD',
    mapping: checkMapping(table.mapping, `${at}.mapping`),
  }
  folder.org = optString(table, 'org', at) ?? folder.account
  if (backend === 'local' && folder.path === null) {
    throw new ValueProblem('required for a local folder', `${at}.path`)
  }
  if (backend === 'drive' && folder.folder_id === null) {
    throw new ValueProblem('required for a drive folder', `${at}.folder_id`)
  }
  return folder
}

/**
 * A bank's export that is not UTF-8 (Windows-1252 is common) names its encoding:
 * any label of the WHATWG Encoding standard, kept in its canonical name
 * ("latin1" is "windows-1252", as browsers read it).
 */
function checkEncoding(label: string, at: string): string {
  try {
    return new TextDecoder(label).encoding
  } catch {
    throw new ValueProblem(
      `unknown encoding ${JSON.stringify(label)} (for example utf-8, windows-1252, iso-8859-15, utf-16le)`,
      at,
    )
  }
}

function checkMapping(value: unknown, at: string): CsvMapping {
  const table = value === undefined ? {} : asTable(value, at)
  rejectUnknown(table, MAPPING_KEYS, at)
  const hasHeader = table.has_header ?? true
  if (typeof hasHeader !== 'boolean') {
    throw new ValueProblem(`expected a boolean, got ${typeName(hasHeader)}`, `${at}.has_header`)
  }
  const delimiter = optString(table, 'delimiter', at) ?? ','
  if ([...delimiter].length !== 1) {
    throw new ValueProblem('must be a single character', `${at}.delimiter`)
  }
  const mapping: CsvMapping = {
    has_header: hasHeader,
    delimiter,
    date_column: null,
    amount_column: null,
    debit_column: null,
    credit_column: null,
    description_column: null,
    payee_column: null,
    memo_column: null,
    date_format: optString(table, 'date_format', at),
    encoding: checkEncoding(optString(table, 'encoding', at) ?? 'utf-8', `${at}.encoding`),
  }
  for (const key of COLUMN_KEYS) mapping[key] = optColumn(table, key, at)
  return mapping
}

function asTable(value: unknown, at: string): Record<string, unknown> {
  if (!isTable(value)) throw new ValueProblem(`expected a table, got ${typeName(value)}`, at)
  return value
}

function rejectUnknown(table: Record<string, unknown>, known: readonly string[], at: string): void {
  for (const key of Object.keys(table)) {
    if (!known.includes(key)) throw new ValueProblem('unknown key', `${at}.${key}`)
  }
}

function optString(table: Record<string, unknown>, key: string, at: string): string | null {
  const value = table[key]
  if (value === undefined || value === null) return null
  if (typeof value !== 'string') {
    throw new ValueProblem(`expected a string, got ${typeName(value)}`, `${at}.${key}`)
  }
  if (value.trim() === '') throw new ValueProblem('must not be empty', `${at}.${key}`)
  return value
}

function reqString(table: Record<string, unknown>, key: string, at: string): string {
  const value = optString(table, key, at)
  if (value === null) throw new ValueProblem('required', `${at}.${key}`)
  return value
}

function optColumn(table: Record<string, unknown>, key: string, at: string): CsvColumn | null {
  const value = table[key]
  if (value === undefined || value === null) return null
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value
  if (typeof value === 'string' && value.trim() !== '') return value
  throw new ValueProblem(
    `expected a header name or a 0-based column index, got ${typeName(value)}`,
    `${at}.${key}`,
  )
}
