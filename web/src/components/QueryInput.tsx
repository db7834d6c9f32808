// A search-language box (CONTRACT 7), used by the transaction list and the rule
// editor: the query, its error shown inline under the character it names, and
// the language's help one click away.
import { useState } from 'preact/hooks'
import type { ApiError } from '../api/client.js'

const HELP: readonly [string, string][] = [
  ['coffee', 'free text in description, payee, memo, account, id, labels, extensions'],
  ['"whole foods"', 'a phrase'],
  ['coffee -starbucks', 'AND is implied; - or NOT negates'],
  ['netflix OR spotify', 'either; parentheses group'],
  ['amount:<0   amount:-100..-50', 'exact decimal comparisons and ranges'],
  ['date:2024-05   date:2024..2025-03', 'a year, month or day; ranges'],
  ['label:category=food   category=food', 'labels (key, =, !=, ~ contains)'],
  ['ext:tax.deductible   ext:tax.rate=0.2', 'extensions, compared as text'],
  ['payee:acme   account:checking   source:csv', 'fields'],
  ['pending:true   rel:refund   related:<id>', 'state and relationships'],
]

export function QueryError({ query, error }: { query: string; error: ApiError }) {
  const offset = error.offset
  const message = error.errors[0]?.message ?? error.detail
  return (
    <div class="query-error" role="alert">
      {offset !== null && offset <= query.length ? (
        <pre aria-hidden="true">
          {query.slice(0, offset)}
          <mark>{query.slice(offset, offset + 1) || ' '}</mark>
          {query.slice(offset + 1)}
          {'\n'}
          {' '.repeat(offset)}^
        </pre>
      ) : null}
      <span>{message}</span>
    </div>
  )
}

export function QueryHelp() {
  return (
    <table class="query-help">
      <tbody>
        {HELP.map(([example, meaning]) => (
          <tr key={example}>
            <td>
              <code>{example}</code>
            </td>
            <td>{meaning}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function QueryInput({
  value,
  onInput,
  onSubmit,
  error,
  label,
  placeholder,
}: {
  value: string
  onInput: (value: string) => void
  onSubmit?: () => void
  error: ApiError | null
  label: string
  placeholder?: string
}) {
  const [help, setHelp] = useState(false)
  return (
    <div class="query-input">
      <div class="row">
        <input
          type="search"
          aria-label={label}
          aria-invalid={error ? true : undefined}
          placeholder={placeholder ?? 'Search: coffee -starbucks amount:<0 date:2024'}
          value={value}
          spellcheck={false}
          autocomplete="off"
          onInput={(e) => onInput(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') onSubmit?.()
          }}
        />
        <button type="button" aria-expanded={help} onClick={() => setHelp(!help)}>
          Syntax
        </button>
      </div>
      {error ? <QueryError query={value} error={error} /> : null}
      {help ? <QueryHelp /> : null}
    </div>
  )
}
