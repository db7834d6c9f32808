// Provenance (SPEC 2.5): where a transaction came from and what happened to it,
// derived from its row and history. Read-only; emits nothing.
import type { ServiceContext } from '../context.js'
import { NotFound } from '../errors.js'
import { readVersions, type Diff, type VersionJson } from './history.js'
import type { JsonValue } from './json.js'

export interface ProvenanceJson {
  transaction_id: string
  source: string
  source_transaction_id: string
  account_id: string
  institution?: string
  imported_at: string | null
  last_seen: string | null
  transformations: Array<{ kind: string; occurred_at: string; summary: string }>
}

function show(value: JsonValue): string {
  if (value === null) return 'none'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A compact diff, e.g. `amount 12.00 → 13.00; +label category:food; ~ext tax.rate`. */
export function summarizeDiff(diff: Diff): string {
  const parts: string[] = []
  for (const [field, { from, to }] of Object.entries(diff)) {
    if (field.startsWith('labels.')) {
      const key = field.slice('labels.'.length)
      if (from === null) parts.push(`+label ${key}:${show(to)}`)
      else if (to === null) parts.push(`-label ${key}:${show(from)}`)
      else parts.push(`~label ${key}:${show(to)}`)
    } else if (field.startsWith('extensions.')) {
      const key = field.slice('extensions.'.length)
      parts.push(`${from === null ? '+' : to === null ? '-' : '~'}ext ${key}`)
    } else {
      parts.push(`${field} ${show(from)} → ${show(to)}`)
    }
  }
  return parts.join('; ')
}

function summarize(version: VersionJson): string {
  if (version.kind === 'imported') return `imported from ${version.snapshot.source}`
  const by = version.actor?.startsWith('plugin:') ? ` (by plugin ${version.actor.slice(7)})` : ''
  return summarizeDiff(version.diff) + by
}

export async function getProvenance(ctx: ServiceContext, id: string): Promise<ProvenanceJson> {
  const db = ctx.db.kysely
  const row = await db
    .selectFrom('transactions as t')
    .leftJoin('accounts as a', 'a.id', 't.account_id')
    .leftJoin('organizations as o', 'o.id', 'a.org_id')
    .select(['t.id', 't.source', 't.account_id', 't.synced_at', 'o.name as institution'])
    .where('t.id', '=', id)
    .executeTakeFirst()
  if (!row) throw new NotFound(`transaction ${id} not found`)
  const versions = (await readVersions(db, id)).filter((v) => v.kind !== 'deleted')
  return {
    transaction_id: row.id,
    source: row.source,
    source_transaction_id: row.id,
    account_id: row.account_id,
    ...(row.institution ? { institution: row.institution } : {}),
    imported_at: versions[0]?.occurred_at ?? row.synced_at,
    last_seen: row.synced_at,
    transformations: versions.map((v) => ({
      kind: v.kind,
      occurred_at: v.occurred_at,
      summary: summarize(v),
    })),
  }
}
