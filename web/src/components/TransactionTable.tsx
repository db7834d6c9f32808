// Rows of transactions, as a table on a wide screen and as stacked cards on a
// phone (CSS only). Used by the transaction list and an account's page.
import { useEffect } from 'preact/hooks'
import type { Result } from '../api/client.js'
import { accounts, refreshForUnknown } from '../stores/accounts.js'
import { Money } from './Money.js'

export type Transaction = Result<'GET /transactions/:id'>

/** A transaction's date as a person reads it: the day, and the time only when it has one. */
export function transactionDate(timestamp: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?(\.\d+)?Z$/.exec(timestamp)
  if (!match) return timestamp
  const [, day = timestamp, time = '00:00', seconds = ':00'] = match
  if (time === '00:00' && seconds === ':00') return day
  return `${day} ${time} UTC`
}

function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels)
  if (entries.length === 0) return null
  return (
    <span class="chips">
      {entries.slice(0, 4).map(([k, v]) => (
        <span class="chip" key={k} title={`${k}:${v}`}>
          {k}:{v}
        </span>
      ))}
      {entries.length > 4 ? <span class="chip more">+{entries.length - 4}</span> : null}
    </span>
  )
}

export function TransactionTable({
  transactions,
  showAccount = true,
}: {
  transactions: readonly Transaction[]
  showAccount?: boolean
}) {
  const byId = accounts.value
  useEffect(() => refreshForUnknown(transactions.map((t) => t.account_id)), [transactions])
  return (
    <table class="rows transactions">
      <thead>
        <tr>
          <th scope="col">Date</th>
          <th scope="col">Description</th>
          {showAccount ? <th scope="col">Account</th> : null}
          <th scope="col">Labels</th>
          <th scope="col" class="num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {transactions.map((t) => {
          const account = byId.get(t.account_id)
          return (
            <tr key={t.id}>
              <td class="date">
                <time dateTime={t.date}>{transactionDate(t.date)}</time>
              </td>
              <td class="description">
                {/* Cut to a few lines; the whole text is the title and the detail page. */}
                <a
                  class="clamp"
                  href={`/transactions/${encodeURIComponent(t.id)}`}
                  title={t.description || t.payee || undefined}
                >
                  {t.description || t.payee || <em>(no description)</em>}
                </a>
                {t.payee && t.description ? (
                  <div class="sub clamp" title={t.payee}>
                    {t.payee}
                  </div>
                ) : null}
                {t.pending ? <span class="badge">pending</span> : null}
              </td>
              {showAccount ? (
                <td class="account">
                  <span class="clamp" title={account?.name ?? t.account_id}>
                    {account?.name ?? t.account_id}
                  </span>
                </td>
              ) : null}
              <td class="labels">
                <Labels labels={t.labels} />
              </td>
              <td class="num">
                <Money amount={t.amount} currency={account?.currency} />
              </td>
            </tr>
          )
        })}
      </tbody>
    </table>
  )
}
