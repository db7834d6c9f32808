// Sync run records (CONTRACT 6 "Sync run"): the row a run writes when it starts,
// the one serializer of it, and the reads behind GET /sync and /sync/history.
import { randomBytes } from 'node:crypto'
import type { DbExecutor } from '../db/schema.js'
import type { SourceCounts, SyncRunJson, SyncStatus, SyncTrigger } from '../schemas/sync.js'
import type { SyncRunsTable } from './tables.js'

export type { SourceCounts, SyncRunJson, SyncStatus, SyncTrigger } from '../schemas/sync.js'

/** A run with the per-source failures kept beside it (shown on GET /sources). */
export interface SyncRunRecord {
  run: SyncRunJson
  sourceErrors: Record<string, string>
}

/** What a run whose process died is marked with (CONTRACT 6). */
export const INTERRUPTED = 'interrupted'

/**
 * run_<UUIDv7>: the id starts with the wall-clock milliseconds, so ids of runs
 * started within one second (started_at's precision) still sort by start.
 */
export function newRunId(): string {
  const bytes = randomBytes(16)
  const ms = BigInt(Date.now())
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn)
  bytes[6] = (bytes[6]! & 0x0f) | 0x70
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `run_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export function zeroCounts(): SourceCounts {
  return { inserted: 0, updated: 0, unchanged: 0, skipped: 0 }
}

export function toRunRecord(row: SyncRunsTable): SyncRunRecord {
  return {
    run: {
      id: row.id,
      source: row.source,
      trigger: row.trigger as SyncTrigger,
      started_at: row.started_at,
      completed_at: row.completed_at,
      status: row.status as SyncStatus,
      error: row.error,
      counts: JSON.parse(row.counts) as Record<string, SourceCounts>,
      warnings: JSON.parse(row.warnings) as string[],
    },
    sourceErrors: JSON.parse(row.source_errors) as Record<string, string>,
  }
}

export function toRunRow(record: SyncRunRecord, owner: string): SyncRunsTable {
  const { run } = record
  return {
    ...run,
    counts: JSON.stringify(run.counts),
    warnings: JSON.stringify(run.warnings),
    source_errors: JSON.stringify(record.sourceErrors),
    owner,
  }
}

export async function insertRun(db: DbExecutor, record: SyncRunRecord, owner: string) {
  await db.insertInto('sync_runs').values(toRunRow(record, owner)).execute()
}

/** Writes the final state of a run (status, counts, warnings, completion time). */
export async function finishRun(db: DbExecutor, record: SyncRunRecord): Promise<void> {
  const { run } = record
  await db
    .updateTable('sync_runs')
    .set({
      completed_at: run.completed_at,
      status: run.status,
      error: run.error,
      counts: JSON.stringify(run.counts),
      warnings: JSON.stringify(run.warnings),
      source_errors: JSON.stringify(record.sourceErrors),
    })
    .where('id', '=', run.id)
    .execute()
}

export async function findRun(db: DbExecutor, id: string): Promise<SyncRunRecord | null> {
  const row = await db.selectFrom('sync_runs').selectAll().where('id', '=', id).executeTakeFirst()
  return row ? toRunRecord(row) : null
}

/** Newest first. Index: sync_runs_started (started_at, id). */
export async function listRuns(db: DbExecutor, limit: number): Promise<SyncRunRecord[]> {
  const rows = await db
    .selectFrom('sync_runs')
    .selectAll()
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows.map(toRunRecord)
}

/** The newest run that covered `source` (a run of all sources or of that one). */
export async function lastRunOf(db: DbExecutor, source: string): Promise<SyncRunRecord | null> {
  const row = await db
    .selectFrom('sync_runs')
    .selectAll()
    .where((eb) => eb.or([eb('source', 'is', null), eb('source', '=', source)]))
    .orderBy('started_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row ? toRunRecord(row) : null
}

/** Runs still marked running. Index: sync_runs_status. */
export async function runningRuns(db: DbExecutor): Promise<Array<{ id: string; owner: string }>> {
  return db
    .selectFrom('sync_runs')
    .select(['id', 'owner'])
    .where('status', '=', 'running')
    .orderBy('started_at', 'desc')
    .execute()
}

/** Marks runs left running by a dead process as failed (CONTRACT 6); returns their ids. */
export async function markInterrupted(
  db: DbExecutor,
  ids: readonly string[],
  now: string,
): Promise<void> {
  if (ids.length === 0) return
  await db
    .updateTable('sync_runs')
    .set({ status: 'error', error: INTERRUPTED, completed_at: now })
    .where('id', 'in', ids)
    .where('status', '=', 'running')
    .execute()
}

/** GET /sync: the newest run, or null before the first. */
export async function latestRun(db: DbExecutor): Promise<SyncRunJson | null> {
  const [latest] = await listRuns(db, 1)
  return latest?.run ?? null
}

/** GET /sync/history. */
export async function listRunsJson(db: DbExecutor, limit: number): Promise<SyncRunJson[]> {
  return (await listRuns(db, limit)).map((record) => record.run)
}
