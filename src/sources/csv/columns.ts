// Which cell holds what (SPEC 1.3 "Mapping keys"): columns named in the folder's
// mapping (a header name or a 0-based index) win; the others are detected from
// the header by common names and their aliases.
import type { CsvColumn, CsvMapping } from '../../config/index.js'

export type Field = 'date' | 'amount' | 'debit' | 'credit' | 'description' | 'payee' | 'memo'

/** 0-based indexes of the cells of one file. */
export type ColumnPlan = { date: number } & { [F in Exclude<Field, 'date'>]: number | null }

// Compared after normalizeHeader; the earlier alias wins when a file has several.
const ALIASES: Record<Field, readonly string[]> = {
  date: [
    'date',
    'transaction date',
    'trans date',
    'txn date',
    'posted date',
    'posting date',
    'post date',
    'booking date',
    'value date',
    'posted',
  ],
  amount: ['amount', 'transaction amount', 'amt', 'net amount', 'value', 'sum'],
  debit: [
    'debit',
    'debits',
    'debit amount',
    'withdrawal',
    'withdrawals',
    'withdrawal amount',
    'money out',
    'paid out',
    'outflow',
  ],
  credit: [
    'credit',
    'credits',
    'credit amount',
    'deposit',
    'deposits',
    'deposit amount',
    'money in',
    'paid in',
    'inflow',
  ],
  description: [
    'description',
    'desc',
    'transaction description',
    'original description',
    'details',
    'narrative',
    'particulars',
    'text',
    'name',
  ],
  payee: [
    'payee',
    'payee name',
    'merchant',
    'merchant name',
    'counterparty',
    'beneficiary',
    'vendor',
    'recipient',
  ],
  memo: ['memo', 'note', 'notes', 'comment', 'comments', 'remarks', 'reference'],
}

const MAPPING_KEY: Record<Field, keyof CsvMapping> = {
  date: 'date_column',
  amount: 'amount_column',
  debit: 'debit_column',
  credit: 'credit_column',
  description: 'description_column',
  payee: 'payee_column',
  memo: 'memo_column',
}

/** "Posted_Date " → "posted date": case, punctuation and spacing do not matter. */
function normalizeHeader(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}

/** Mapping problems that hold for every file of a folder; null when the mapping is usable. */
export function checkMapping(mapping: CsvMapping): string | null {
  if (mapping.has_header) return null
  for (const field of Object.keys(MAPPING_KEY) as Field[]) {
    const column = mapping[MAPPING_KEY[field]] as CsvColumn | null
    if (typeof column === 'string') {
      return `mapping.${MAPPING_KEY[field]}: has_header = false needs a 0-based column index, not a name`
    }
  }
  if (mapping.date_column === null) return 'mapping.date_column: required when has_header = false'
  if (
    mapping.amount_column === null &&
    mapping.debit_column === null &&
    mapping.credit_column === null
  ) {
    return 'mapping.amount_column (or debit_column / credit_column): required when has_header = false'
  }
  return null
}

/** The plan for a file with this header (null: no header), or an error message. */
export function planColumns(
  mapping: CsvMapping,
  header: readonly string[] | null,
): ColumnPlan | string {
  const names = header?.map(normalizeHeader) ?? []
  const taken = new Set<number>()
  const plan: Partial<Record<Field, number | null>> = {}

  // Columns the mapping names first, so that detection never takes them.
  for (const field of Object.keys(MAPPING_KEY) as Field[]) {
    const column = mapping[MAPPING_KEY[field]] as CsvColumn | null
    if (column === null) continue
    let index: number
    if (typeof column === 'number') {
      index = column
    } else {
      index = names.indexOf(normalizeHeader(column))
      if (index < 0) return `no column named ${JSON.stringify(column)} (${MAPPING_KEY[field]})`
    }
    plan[field] = index
    taken.add(index)
  }

  const explicitAmount =
    mapping.amount_column !== null ||
    mapping.debit_column !== null ||
    mapping.credit_column !== null
  const detect = (field: Field): void => {
    if (plan[field] !== undefined || header === null) return
    for (const alias of ALIASES[field]) {
      const index = names.findIndex((name, i) => name === alias && !taken.has(i))
      if (index >= 0) {
        plan[field] = index
        taken.add(index)
        return
      }
    }
  }
  detect('date')
  if (!explicitAmount) {
    detect('amount')
    // A single amount column wins over a debit/credit pair (SPEC 1.3 rule 6).
    if (plan.amount === undefined) {
      detect('debit')
      detect('credit')
    }
  }
  detect('description')
  detect('payee')
  detect('memo')

  if (plan.date === undefined || plan.date === null)
    return 'no date column (set mapping.date_column)'
  if (plan.amount == null && plan.debit == null && plan.credit == null) {
    return 'no amount, debit or credit column (set mapping.amount_column)'
  }
  return {
    date: plan.date,
    amount: plan.amount ?? null,
    debit: plan.debit ?? null,
    credit: plan.credit ?? null,
    description: plan.description ?? null,
    payee: plan.payee ?? null,
    memo: plan.memo ?? null,
  }
}
