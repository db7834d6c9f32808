// A search-language box (CONTRACT 7), used by the transaction list and the rule
// editor: the query, its error shown inline under the character it names, and
// the whole language's help one click away (readable on a phone: each example
// stacks above its meaning).
import { useId, useState } from 'preact/hooks'
import type { ApiError } from '../api/client.js'
import './QueryInput.css'

interface HelpGroup {
  title: string
  rows: readonly (readonly [example: string, meaning: string])[]
}

/** The language as CONTRACT 7 defines it, group by group. */
const HELP: readonly HelpGroup[] = [
  {
    title: 'Words and phrases',
    rows: [
      [
        'coffee',
        'free text: anywhere in description, payee, memo, account name, id, labels or extension keys and values (case-insensitive)',
      ],
      ['"whole foods"', 'a phrase in quotes is one term'],
      ['"ref:123"', 'quote text that has a colon, or it is read as a field'],
      ['(blank)', 'an empty query matches every transaction'],
    ],
  },
  {
    title: 'Combining',
    rows: [
      ['coffee tea', 'both (AND is implied; AND or & also work)'],
      ['netflix OR spotify', 'either (OR or |)'],
      ['coffee -starbucks', 'not (- or NOT); NOT binds tighter than AND, AND tighter than OR'],
      ['(netflix OR hulu) amount:<0', 'parentheses group'],
    ],
  },
  {
    title: 'Text fields',
    rows: [
      ['description:rent   payee:acme', 'contains, case-insensitive'],
      ['memo:invoice   account:checking   id:man_', 'memo, account name, transaction id'],
      [
        'account_id:csv:bank   source:csv',
        'exact: account id, source (manual, csv, aggregator, ethereum)',
      ],
    ],
  },
  {
    title: 'Amounts (exact decimals, never rounded)',
    rows: [
      ['amount:12.50   amount:=12.5', 'equal (12.5 matches 12.50)'],
      ['amount:!=0', 'not equal'],
      ['amount:<0   amount:>=1,000', 'less, greater or equal (commas are ignored)'],
      ['amount:-100..-50   amount:10..   amount:..0', 'ranges, both ends included'],
    ],
  },
  {
    title: 'Dates (UTC)',
    rows: [
      ['date:2024   date:2024-05   date:2024-05-02', 'within a year, month or day'],
      [
        'date:<2024-05   date:>=2024',
        'before its start; from its start (<= up to its end, > after it)',
      ],
      ['date:!=2024', 'outside that period'],
      [
        'date:2024-01..2024-03   date:2024..   date:..2023',
        'ranges, from the start of one to the end of the other',
      ],
      ['synced:2024-06', 'the same for when a sync last touched the row'],
    ],
  },
  {
    title: 'State',
    rows: [['pending:true   pending:no', 'pending or not (true/false, yes/no, 1/0)']],
  },
  {
    title: 'Labels',
    rows: [
      ['label:category', 'has the key'],
      ['label:category=food   category=food', 'value equal (any other name:value is a label)'],
      ['label:category!=food', 'value not equal (a missing key matches too)'],
      ['label:note~trip', 'value contains; keys are lower-case, values ignore case'],
    ],
  },
  {
    title: 'Extensions (values compared as text)',
    rows: [
      ['ext:tax.deductible', 'has the key'],
      [
        'ext:tax.rate=0.2   ext:tax.deductible=true',
        'equal (a string by its text, anything else as JSON)',
      ],
      ['ext:tax.code!=A   ext:custom.app.note~trip', 'not equal; contains'],
    ],
  },
  {
    title: 'Relationships',
    rows: [
      ['rel:refund', 'has an outbound edge of that kind'],
      ['rel:refund=<id>', 'an outbound edge of that kind to that transaction'],
      ['related:<id>', 'an edge either way with that transaction'],
    ],
  },
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

export function QueryHelp({ id }: { id?: string }) {
  return (
    <div class="query-help" id={id} role="region" aria-label="Search syntax">
      {HELP.map((group) => (
        <section key={group.title}>
          <h3>{group.title}</h3>
          <dl>
            {group.rows.map(([example, meaning]) => (
              <div key={example}>
                <dt>
                  <code>{example}</code>
                </dt>
                <dd>{meaning}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
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
  const helpId = useId()
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
        <button
          type="button"
          aria-expanded={help}
          aria-controls={helpId}
          onClick={() => setHelp(!help)}
        >
          Syntax
        </button>
      </div>
      {error ? <QueryError query={value} error={error} /> : null}
      {help ? <QueryHelp id={helpId} /> : null}
    </div>
  )
}
