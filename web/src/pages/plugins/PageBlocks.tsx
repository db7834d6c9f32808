// A plugin page's blocks (CONTRACT 9), drawn as text only: every value a plugin
// returns goes into the page as a text node or an attribute Preact escapes,
// never as markup, so a plugin cannot put script, links or styles on the page.
// Action buttons and forms hand their id and params to `onAction`, the params
// as JSON text so that a number field's value is sent as typed.
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import type { Result } from '../../api/client.js'
import { numberNotes } from '../../components/extensions-json.js'

export type PluginPageJson = Result<'GET /plugins/pages/:name'>['page']
type Block = PluginPageJson['blocks'][number]
type FormBlock = Extract<Block, { type: 'form' }>
type Field = FormBlock['fields'][number]

/** Runs an action: its id, and its params as the text of a JSON object. */
export type RunAction = (id: string, paramsJson: string) => void

/** What a field starts as, in the form's own terms (checkbox state, input text). */
function initialOf(field: Field): string | boolean {
  if (field.kind === 'toggle') return field.value === true || field.value === 'true'
  if (field.value !== undefined) return String(field.value)
  return field.kind === 'select' ? (field.options?.[0] ?? '') : ''
}

/** A number field's text as a JSON number literal (`.5` is `0.5`), or null when it is none. */
function numberLiteral(text: string): string | null {
  const literal = text.replace(/^(-?)\./, '$10.')
  return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(literal) ? literal : null
}

/**
 * The params a form sends, as JSON text: toggles as booleans, texts as strings,
 * and a number as the very literal typed (an empty one left out), never through
 * Number(), which would round 12345678901234567890 to 12345678901234567000. The
 * service takes a JSON number and refuses one no double holds exactly, so the
 * form refuses it first, saying why; 0.10 is sent as typed and read as 0.1.
 */
function paramsOf(
  fields: readonly Field[],
  values: Record<string, string | boolean>,
): { json: string } | { error: string } {
  const members: string[] = []
  for (const field of fields) {
    const value = values[field.name] ?? initialOf(field)
    const key = JSON.stringify(field.name)
    if (field.kind === 'toggle') members.push(`${key}:${value === true}`)
    else if (field.kind === 'number') {
      const text = String(value).trim()
      if (text === '') continue
      const literal = numberLiteral(text)
      if (literal === null) return { error: `${field.label}: "${text}" is not a number.` }
      if (numberNotes(literal).some((note) => note.storedAs === null)) {
        return {
          error:
            `${field.label}: ${literal} has more digits than a number holds exactly, so the ` +
            'plugin would get another value. Use fewer significant digits.',
        }
      }
      members.push(`${key}:${literal}`)
    } else members.push(`${key}:${JSON.stringify(String(value))}`)
  }
  return { json: `{${members.join(',')}}` }
}

function PageForm({
  block,
  index,
  busy,
  onAction,
}: {
  block: FormBlock
  index: number
  busy: boolean
  onAction: RunAction
}) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    Object.fromEntries(block.fields.map((f) => [f.name, initialOf(f)])),
  )
  const [refused, setRefused] = useState<string | null>(null)
  const set = (name: string, value: string | boolean) =>
    setValues((previous) => ({ ...previous, [name]: value }))
  return (
    <form
      class="card plugin-form"
      onSubmit={(event) => {
        event.preventDefault()
        const params = paramsOf(block.fields, values)
        if ('error' in params) return setRefused(params.error)
        setRefused(null)
        onAction(block.id, params.json)
      }}
    >
      <div class="form-row">
        {block.fields.map((field) => {
          const id = `plugin-form-${index}-${field.name}`
          const value = values[field.name] ?? initialOf(field)
          if (field.kind === 'toggle')
            return (
              <label class="check" key={field.name} for={id}>
                <input
                  id={id}
                  type="checkbox"
                  checked={value === true}
                  onChange={(event) => set(field.name, event.currentTarget.checked)}
                />
                {field.label}
              </label>
            )
          if (field.kind === 'select')
            return (
              <label key={field.name} for={id}>
                {field.label}
                <select
                  id={id}
                  value={String(value)}
                  onChange={(event) => set(field.name, event.currentTarget.value)}
                >
                  {(field.options ?? []).map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              </label>
            )
          return (
            <label key={field.name} for={id}>
              {field.label}
              {field.kind === 'number' ? (
                <input
                  id={id}
                  type="number"
                  step="any"
                  value={String(value)}
                  onInput={(event) => set(field.name, event.currentTarget.value)}
                />
              ) : (
                <input
                  id={id}
                  type="text"
                  value={String(value)}
                  onInput={(event) => set(field.name, event.currentTarget.value)}
                />
              )}
            </label>
          )
        })}
      </div>
      {refused ? (
        <p class="error-note" role="alert">
          {refused}
        </p>
      ) : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {block.submit_label ?? 'Submit'}
        </button>
      </div>
    </form>
  )
}

function PageTable({ block }: { block: Extract<Block, { type: 'table' }> }) {
  return (
    <div class="plugin-table-wrap">
      <table class="rows plugin-table">
        {block.columns.length > 0 ? (
          <thead>
            <tr>
              {block.columns.map((column, i) => (
                <th scope="col" key={i}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
        ) : null}
        <tbody>
          {block.rows.map((row, r) => (
            <tr key={r}>
              {row.map((cell, c) => (
                <td key={c} data-label={block.columns[c] ?? undefined}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {block.rows.length === 0 ? <p class="empty">No rows.</p> : null}
    </div>
  )
}

function PageBlock({
  block,
  index,
  busy,
  onAction,
}: {
  block: Block
  index: number
  busy: boolean
  onAction: RunAction
}) {
  switch (block.type) {
    case 'heading':
      return <h2 class="plugin-heading">{block.text}</h2>
    case 'text':
      return <p class="plugin-text">{block.text}</p>
    case 'stat':
      return (
        <div class="card stat plugin-stat">
          <span class="label">{block.label}</span>
          <span class="value">{block.value}</span>
          {block.hint ? <span class="hint">{block.hint}</span> : null}
        </div>
      )
    case 'keyvalue':
      return (
        <dl class="kv card plugin-kv">
          {block.items.map((item, i) => (
            <Fragment key={i}>
              <dt>{item.key}</dt>
              <dd>{item.value}</dd>
            </Fragment>
          ))}
        </dl>
      )
    case 'table':
      return <PageTable block={block} />
    case 'actions':
      return (
        <div class="actions plugin-actions">
          {block.actions.map((action) => (
            <button
              type="button"
              key={action.id}
              class={action.style === 'secondary' ? undefined : action.style}
              disabled={busy}
              onClick={() => onAction(action.id, JSON.stringify(action.params ?? {}))}
            >
              {action.label}
            </button>
          ))}
        </div>
      )
    case 'form':
      return <PageForm block={block} index={index} busy={busy} onAction={onAction} />
    case 'divider':
      return <hr class="plugin-divider" />
  }
}

/** Runs of stat blocks side by side; everything else one under the other. */
function groups(blocks: readonly Block[]): { start: number; blocks: Block[] }[] {
  const out: { start: number; blocks: Block[] }[] = []
  blocks.forEach((block, i) => {
    const last = out[out.length - 1]
    if (block.type === 'stat' && last?.blocks[0]?.type === 'stat') last.blocks.push(block)
    else out.push({ start: i, blocks: [block] })
  })
  return out
}

export function PageBlocks({
  page,
  busy,
  onAction,
}: {
  page: PluginPageJson
  busy: boolean
  onAction: RunAction
}) {
  return (
    <div class="plugin-blocks">
      {groups(page.blocks).map((group) =>
        group.blocks[0]?.type === 'stat' ? (
          <div class="plugin-stats" key={group.start}>
            {group.blocks.map((block, i) => (
              <PageBlock
                key={i}
                block={block}
                index={group.start + i}
                busy={busy}
                onAction={onAction}
              />
            ))}
          </div>
        ) : (
          <PageBlock
            key={group.start}
            block={group.blocks[0]!}
            index={group.start}
            busy={busy}
            onAction={onAction}
          />
        ),
      )}
    </div>
  )
}
