// A plugin page's blocks (CONTRACT 9), drawn as text only: every value a plugin
// returns goes into the page as a text node or an attribute Preact escapes,
// never as markup, so a plugin cannot put script, links or styles on the page.
// Action buttons and forms hand their id and params to `onAction`.
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import type { Body, Result } from '../../api/client.js'

export type PluginPageJson = Result<'GET /plugins/pages/:name'>['page']
type Block = PluginPageJson['blocks'][number]
type FormBlock = Extract<Block, { type: 'form' }>
type Field = FormBlock['fields'][number]
type Params = NonNullable<Body<'POST /plugins/pages/:name/action'>['params']>

export type RunAction = (id: string, params: Params) => void

/** What a field starts as, in the form's own terms (checkbox state, input text). */
function initialOf(field: Field): string | boolean {
  if (field.kind === 'toggle') return field.value === true || field.value === 'true'
  if (field.value !== undefined) return String(field.value)
  return field.kind === 'select' ? (field.options?.[0] ?? '') : ''
}

/** The params a form sends: numbers as numbers (an empty one left out), toggles as booleans. */
function paramsOf(fields: readonly Field[], values: Record<string, string | boolean>): Params {
  const params: Params = {}
  for (const field of fields) {
    const value = values[field.name] ?? initialOf(field)
    if (field.kind === 'toggle') params[field.name] = value === true
    else if (field.kind === 'number') {
      const text = String(value).trim()
      if (text !== '') params[field.name] = Number.isFinite(Number(text)) ? Number(text) : text
    } else params[field.name] = String(value)
  }
  return params
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
  const set = (name: string, value: string | boolean) =>
    setValues((previous) => ({ ...previous, [name]: value }))
  return (
    <form
      class="card plugin-form"
      onSubmit={(event) => {
        event.preventDefault()
        onAction(block.id, paramsOf(block.fields, values))
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
              onClick={() => onAction(action.id, action.params ?? {})}
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
