// The log tells the whole story (SPEC 6.1: append-only and replayable): folding
// every event from the first, as a consumer that saw nothing else would, gives
// the ledger the API shows now. Each transaction and account event carries the
// entity's full snapshot, relationship events their edge, and a bulk label
// delete the key (and value) it removed everywhere. A change written without its
// event, or an event whose snapshot is not what was committed, breaks the fold.
import assert from 'node:assert/strict'
import type { TestApp } from './app.js'
import { expectStatus, type Json, type SendOptions } from './http.js'

type App = Pick<TestApp, 'request'>

/** Histories read back at most: a large ledger's are checked on an even spread. */
const HISTORIES_CHECKED = 300

interface Folded {
  transactions: Map<string, Json>
  accounts: Map<string, Json>
  rules: Map<string, Json>
  /** `source kind target`, one per outbound edge. */
  edges: Set<string>
  events: number
}

/** A GET that must answer 200: its parsed body. */
function read(app: App, path: string, options: SendOptions): Promise<Json> {
  return expectStatus(app, 'GET', path, 200, undefined, options)
}

/** Every event of the log, oldest first, through the API. */
async function readLog(app: App, options: SendOptions): Promise<Json[]> {
  const events: Json[] = []
  let after = 0
  for (;;) {
    const page = await read(app, `/api/v1/events?after=${after}&limit=1000`, options)
    events.push(...page.events)
    if (page.events.length === 0) return events
    after = page.next
  }
}

/** A transaction as its events show it: the snapshot without the event's `change`. */
function snapshotOf(data: Json): Json {
  const { change: _change, ...snapshot } = data
  return snapshot
}

function fold(events: readonly Json[]): Folded {
  const folded: Folded = {
    transactions: new Map(),
    accounts: new Map(),
    rules: new Map(),
    edges: new Set(),
    events: events.length,
  }
  for (const event of events) {
    const { type, entity_type: entityType, entity_id: id, data } = event
    if (entityType === 'transaction') {
      if (type === 'transaction.deleted') {
        folded.transactions.delete(id)
        // Its own edges go with it; an edge from a transaction that stays has its event.
        for (const edge of folded.edges) if (edge.startsWith(`${id} `)) folded.edges.delete(edge)
      } else folded.transactions.set(id, snapshotOf(data))
      if (type === 'relationship.created' || type === 'relationship.removed') {
        const edge = `${id} ${data.change.kind} ${data.change.target}`
        if (type === 'relationship.created') folded.edges.add(edge)
        else folded.edges.delete(edge)
      }
    } else if (entityType === 'label' && type === 'label.removed') {
      // One coarse event for `DELETE /labels/{key}` (with `?value=` when it named one).
      for (const tx of folded.transactions.values()) {
        const labels = tx.labels as Record<string, string>
        if (data.key in labels && (data.value == null || labels[data.key] === data.value)) {
          delete labels[data.key]
        }
      }
    } else if (entityType === 'account') {
      if (type === 'account.deleted') folded.accounts.delete(id)
      else folded.accounts.set(id, data)
    } else if (entityType === 'rule' && type !== 'rule.executed') {
      if (type === 'rule.deleted') folded.rules.delete(id)
      else folded.rules.set(id, data)
    }
  }
  return folded
}

/** Every item of a list route, by offset (the lists here are small). */
async function listAll(app: App, path: string, field: string, options: SendOptions) {
  const items: Json[] = []
  for (;;) {
    const sep = path.includes('?') ? '&' : '?'
    const page = await read(app, `${path}${sep}limit=1000&offset=${items.length}`, options)
    items.push(...page[field])
    if (page[field].length < 1000) return items
  }
}

/** A version's value of a diff key: `amount`, `labels.<key>`, `extensions.<dotted.key>`. */
function valueAt(snapshot: Json, diffKey: string): Json {
  const dot = diffKey.indexOf('.')
  const map = dot < 0 ? null : diffKey.slice(0, dot)
  if (map === 'labels' || map === 'extensions') {
    const key = diffKey.slice(dot + 1)
    return Object.hasOwn(snapshot[map], key) ? snapshot[map][key] : null
  }
  return snapshot[diffKey]
}

/**
 * The history of a transaction that exists: versions 1…n, the first `imported`,
 * each diff's `to` what its own snapshot holds and its `from` what the version
 * before held, and the last snapshot the
 * transaction as it is now (but `synced_at`, which a sync that changes nothing moves).
 */
async function assertHistoryEndsAt(app: App, id: string, tx: Json, options: SendOptions) {
  const { versions } = await read(
    app,
    `/api/v1/transactions/${encodeURIComponent(id)}/history`,
    options,
  )
  assert.ok(versions.length > 0, `transaction ${id} has a history`)
  assert.deepEqual(
    versions.map((v: Json) => v.version),
    versions.map((_: Json, i: number) => i + 1),
    `transaction ${id}: versions numbered from 1`,
  )
  assert.equal(versions[0].kind, 'imported', `transaction ${id}: the first version`)
  for (const [i, v] of versions.entries()) {
    for (const [key, change] of Object.entries(v.diff as Record<string, Json>)) {
      assert.deepEqual(
        valueAt(v.snapshot, key) ?? null,
        change.to,
        `transaction ${id} version ${v.version}: diff ${key} against its snapshot`,
      )
      // The history replays: each change starts where the version before left the key.
      if (i === 0) continue
      assert.deepEqual(
        change.from ?? null,
        valueAt(versions[i - 1].snapshot, key) ?? null,
        `transaction ${id} version ${v.version}: diff ${key} from the version before`,
      )
    }
  }
  assert.deepEqual(
    withoutSyncedAt(versions.at(-1).snapshot),
    tx,
    `transaction ${id}: its last version against the ledger`,
  )
}

/** `synced_at` moves on every sync that sees the row, without an event (SPEC 2.2). */
function withoutSyncedAt(tx: Json): Json {
  const { synced_at: _syncedAt, ...rest } = tx
  return rest
}

/** The same ids on both sides, and each entity as its last event left it. */
function assertSameEntities(kind: string, fromLog: Map<string, Json>, shown: Map<string, Json>) {
  assert.deepEqual(
    [...fromLog.keys()].sort(),
    [...shown.keys()].sort(),
    `the ${kind}s the log leaves are the ledger’s`,
  )
  for (const [id, entity] of shown) {
    assert.deepEqual(fromLog.get(id), entity, `${kind} ${id}: its last event against the ledger`)
  }
}

function byId(items: Iterable<Json>): Map<string, Json> {
  return new Map([...items].map((item) => [item.id, item]))
}

/**
 * Asserts that the fold of the whole log equals what the API shows: every
 * transaction (but its `synced_at`), account, rule and relationship, and nothing
 * else. `options` carries a token able to read the log.
 */
export async function assertLogFoldsToLedger(app: App, options: SendOptions = {}): Promise<void> {
  const log = await readLog(app, options)
  if (process.env.FOLD_DUMP)
    (await import('node:fs')).writeFileSync(process.env.FOLD_DUMP, JSON.stringify(log))
  const folded = fold(log)

  const transactions = await listAll(app, '/api/v1/transactions', 'transactions', options)
  const shown = byId(transactions.map(withoutSyncedAt))
  const fromLog = byId([...folded.transactions.values()].map(withoutSyncedAt))
  assertSameEntities('transaction', fromLog, shown)
  assertSameEntities(
    'account',
    folded.accounts,
    byId(await listAll(app, '/api/v1/accounts', 'accounts', options)),
  )
  assertSameEntities(
    'rule',
    folded.rules,
    byId(await listAll(app, '/api/v1/rules', 'rules', options)),
  )

  // Histories: every transaction of a small ledger, an even spread of a large one.
  const ids = [...shown.keys()].sort()
  const step = Math.max(1, Math.ceil(ids.length / HISTORIES_CHECKED))
  for (let i = 0; i < ids.length; i += step) {
    await assertHistoryEndsAt(app, ids[i]!, shown.get(ids[i]!), options)
  }

  // Edges: the kinds' counts say how many there are; each edge of the log is read
  // back from its source, so together they are the ledger's edges.
  const { relationships: kinds } = await read(app, '/api/v1/relationships', options)
  const counted = Object.fromEntries((kinds as Json[]).map((k) => [k.kind, k.count]))
  const foldedCounts: Record<string, number> = {}
  for (const edge of folded.edges) {
    const kind = edge.split(' ')[1]!
    foldedCounts[kind] = (foldedCounts[kind] ?? 0) + 1
  }
  assert.deepEqual(
    foldedCounts,
    counted,
    'relationships: edges per kind, the log’s and the ledger’s',
  )
  const sources = new Set([...folded.edges].map((edge) => edge.split(' ')[0]!))
  const edges = new Set<string>()
  for (const id of sources) {
    const { relationships } = await read(
      app,
      `/api/v1/transactions/${encodeURIComponent(id)}/relationships`,
      options,
    )
    for (const edge of relationships as Json[]) {
      if (edge.direction === 'outbound') edges.add(`${id} ${edge.kind} ${edge.transaction_id}`)
    }
  }
  assert.deepEqual([...edges].sort(), [...folded.edges].sort(), 'relationships: the log’s edges')
}
