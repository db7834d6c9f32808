// spending-stats (docs/plugins.md): a plugin page. onPageRender searches with the
// query kept in config and shows how many of the newest transactions match, their
// sum per account, the ten largest, and a form; onPageAction stores the form's
// query with coffer.setConfig and answers the page again.
//
// Amounts are decimal strings ("-12.34") and stay exact: they are added as BigInt
// units at the widest scale seen, never as floats: "0.10" + "0.20" is "0.30"
// here, not 0.30000000000000004, and "-4.10" + "-3.25" + "-0.65" is "-8.00".

type ConfigValue = string | number | boolean

interface Transaction {
  id: string
  account_id: string
  amount: string
  date: string
  description: string | null
  payee: string | null
}

/** The part of the host API this plugin uses (docs/plugins.md, "The host API"). */
interface Coffer {
  readonly config: Readonly<Record<string, ConfigValue>>
  search(
    query: string,
    options?: { limit?: number },
  ): Promise<{ total: number; transactions: Transaction[] }>
  setConfig(changes: Record<string, ConfigValue>): Promise<Readonly<Record<string, ConfigValue>>>
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: object): void
}
declare const coffer: Coffer

type Block =
  | { type: 'heading' | 'text'; text: string }
  | { type: 'stat'; label: string; value: string; hint?: string }
  | { type: 'table'; columns: string[]; rows: string[][] }
  | {
      type: 'actions'
      actions: Array<{ id: string; label: string; style?: 'primary' | 'secondary' }>
    }
  | {
      type: 'form'
      id: string
      fields: Array<{ name: string; label: string; kind: 'text'; value?: string }>
      submit_label?: string
    }
  | { type: 'divider' }

interface Page {
  title: string
  blocks: Block[]
}

const TITLE = 'Spending stats'
const TOP_ROWS = 10
const QUERY_FORM = 'query'
const REFRESH_ACTION = 'refresh'

// ---- exact decimals ------------------------------------------------------

/** value = units / 10^scale */
interface Scaled {
  units: bigint
  scale: number
}

/** "-12.34" → {units: -1234n, scale: 2}; the forms Coffer answers ("5.", ".5" too). */
function parseAmount(text: string): Scaled {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text)
  const whole = match?.[2] ?? ''
  const fraction = match?.[3] ?? ''
  if (!match || whole + fraction === '') throw new Error(`not an amount: ${text}`)
  const magnitude = BigInt(whole + fraction)
  return { units: match[1] === '-' ? -magnitude : magnitude, scale: fraction.length }
}

function atScale(amount: Scaled, scale: number): bigint {
  return amount.units * 10n ** BigInt(scale - amount.scale)
}

/** The exact sum, at the widest scale of its terms ("-4.10" + "-3.25" → "-7.35"). */
function sumAmounts(amounts: Scaled[]): Scaled {
  const scale = amounts.reduce((widest, a) => Math.max(widest, a.scale), 0)
  return { units: amounts.reduce((total, a) => total + atScale(a, scale), 0n), scale }
}

function formatAmount({ units, scale }: Scaled): string {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = digits.slice(digits.length - scale)
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`
}

/** Larger size first (|amount|), compared exactly. */
function bySizeDescending(a: Scaled, b: Scaled): number {
  const scale = Math.max(a.scale, b.scale)
  const abs = (x: bigint) => (x < 0n ? -x : x)
  const left = abs(atScale(a, scale))
  const right = abs(atScale(b, scale))
  return left === right ? 0 : left > right ? -1 : 1
}

// ---- the page ------------------------------------------------------------

function queryForm(query: string): Block {
  return {
    type: 'form',
    id: QUERY_FORM,
    fields: [{ name: 'query', label: 'Search query', kind: 'text', value: query }],
    submit_label: 'Show',
  }
}

/** The page for the query in config; `notice` is shown first (a refused form). */
async function render(notice?: string): Promise<Page> {
  const query = String(coffer.config.query)
  const limit = Number(coffer.config.limit)
  const blocks: Block[] = []
  if (notice) blocks.push({ type: 'text', text: notice })
  blocks.push({ type: 'heading', text: `Transactions matching ${query}` })

  let found: { total: number; transactions: Transaction[] }
  try {
    found = await coffer.search(query, { limit })
  } catch (error) {
    // A query that does not parse: say why and keep the form, so it can be fixed.
    blocks.push({ type: 'text', text: `The query cannot run: ${(error as Error).message}` })
    blocks.push(queryForm(query))
    return { title: TITLE, blocks }
  }
  const rows = found.transactions.map((tx) => ({ tx, amount: parseAmount(tx.amount) }))
  blocks.push({
    type: 'stat',
    label: 'Matches',
    value: String(rows.length),
    hint: found.total > rows.length ? `the newest ${rows.length} of ${found.total}` : 'all of them',
  })

  // One sum per account: an account has one currency, and amounts in different
  // currencies are never added together.
  const byAccount = new Map<string, Scaled[]>()
  for (const { tx, amount } of rows) {
    const amounts = byAccount.get(tx.account_id) ?? []
    amounts.push(amount)
    byAccount.set(tx.account_id, amounts)
  }
  for (const [account, amounts] of [...byAccount].sort(([a], [b]) => (a < b ? -1 : 1)))
    blocks.push({
      type: 'stat',
      label: 'Sum',
      value: formatAmount(sumAmounts(amounts)),
      hint: `account ${account}`,
    })

  if (rows.length > 0) {
    const top = [...rows].sort((a, b) => bySizeDescending(a.amount, b.amount)).slice(0, TOP_ROWS)
    blocks.push({ type: 'divider' })
    blocks.push({ type: 'heading', text: `The ${top.length} largest` })
    blocks.push({
      type: 'table',
      columns: ['Date', 'Description', 'Account', 'Amount'],
      rows: top.map(({ tx }) => [
        tx.date.slice(0, 10),
        tx.description ?? tx.payee ?? '',
        tx.account_id,
        tx.amount,
      ]),
    })
  } else {
    blocks.push({ type: 'text', text: 'No transaction matches this query.' })
  }
  blocks.push({ type: 'divider' })
  blocks.push(queryForm(query))
  blocks.push({ type: 'actions', actions: [{ id: REFRESH_ACTION, label: 'Refresh' }] })
  return { title: TITLE, blocks }
}

export async function onPageRender(_input: { params: Record<string, string> }): Promise<Page> {
  return render()
}

export async function onPageAction(input: {
  action: string
  params: Record<string, unknown>
}): Promise<Page> {
  if (input.action === REFRESH_ACTION) return render()
  if (input.action !== QUERY_FORM) throw new Error(`unknown action ${JSON.stringify(input.action)}`)
  const query = typeof input.params.query === 'string' ? input.params.query.trim() : ''
  if (query === '') return render('Type a search query first.')
  await coffer.setConfig({ query })
  coffer.log('info', 'spending-stats: query changed', { query })
  return render()
}
