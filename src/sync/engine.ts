// The sync engine (SPEC 1.1, CONTRACT 6 "Sync run"): asks every configured source
// to fetch, side by side, and merges what each returns through the mutation path.
// One run at a time (across processes too, lock.ts); a trigger that arrives during
// a run joins it. Every run is recorded and ends with one sync.completed event,
// written in the same unit of work as the run's final state.
import { configSecrets, redactText } from '../config/index.js'
import type { ServiceContext } from '../context.js'
import { Conflict, NotFound } from '../errors.js'
import { duringBulkWrites } from '../db/bulk.js'
import type { DbExecutor } from '../db/schema.js'
import { isoNow } from '../clock.js'
import type { SecretStore } from '../secrets/store.js'
import { isSkip, isStarted, type Source, type SourceContext } from '../sources/source.js'
import { ownerId, runLockFor, type HeldLock, type RunLock } from './lock.js'
import { buildIndexesDeferredByImport, FirstImportIndexes } from './first-import.js'
import { mergeBatch } from './merge-batch.js'
import {
  finishRun,
  findRun,
  insertRun,
  markInterrupted,
  newRunId,
  runningRuns,
  zeroCounts,
  type SyncRunJson,
  type SyncRunRecord,
  type SyncTrigger,
} from './runs.js'

/** How often a caller waiting on another process's run looks at it again. */
const JOIN_POLL_MS = 250
/** Attempts to find the other process's run when the lock is taken but its row not yet written. */
const JOIN_FIND_ATTEMPTS = 40

export interface SyncRequest {
  trigger: SyncTrigger
  /** One source type, or null for every configured source. */
  source: string | null
}

export interface StartedRun {
  run_id: string
  /** Settles with the final run. */
  done: Promise<SyncRunJson>
}

export interface SyncProgress {
  run_id: string
  source: string
  phase: 'started' | 'rows' | 'skipped' | 'finished' | 'failed'
  /** Rows merged so far. */
  rows: number
}

// Engines alive in this process; lets the SQLite lock tell a live owner in this
// process (another app, as in tests) from the dead one of an earlier process.
const LIVE_OWNERS = new Set<string>()

export class SyncEngine {
  private readonly owner = ownerId()
  private readonly lock: RunLock
  /** This process's run; `ended` once its outcome is known (it may still hold the lock). */
  private active: (StartedRun & { ended: boolean }) | null = null
  private starting: Promise<StartedRun> | null = null
  private readonly listeners = new Set<(progress: SyncProgress) => void>()

  constructor(
    private readonly ctx: ServiceContext,
    readonly sources: readonly Source[],
    readonly secrets: SecretStore,
  ) {
    LIVE_OWNERS.add(this.owner)
    this.lock = runLockFor(ctx.db, this.owner, LIVE_OWNERS)
  }

  get sourceContext(): SourceContext {
    return { ctx: this.ctx, secrets: this.secrets }
  }

  findSource(type: string): Source {
    const source = this.sources.find((s) => s.type === type)
    if (!source) throw new NotFound(`unknown source ${type}`)
    return source
  }

  /** Progress of runs of this process (the CLI draws it). Returns an unsubscribe. */
  onProgress(listener: (progress: SyncProgress) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Marks runs left `running` by a dead process as failed (CONTRACT 6), unless
   * another live process holds the lock, in which case its run is genuine.
   */
  async recover(): Promise<void> {
    const held = await this.lock.tryAcquire((db) => this.markOrphans(db))
    if (!held) return
    try {
      // What a first import that died part-way left unbuilt (first-import.ts).
      await buildIndexesDeferredByImport(this.ctx)
    } finally {
      await held.release()
    }
  }

  /** Starts a run, or joins the one under way; resolves as soon as the run has an id. */
  async trigger(request: SyncRequest): Promise<StartedRun> {
    if (request.source !== null) {
      const source = this.findSource(request.source)
      if (!(await isStarted(source, this.sourceContext))) {
        throw new Conflict(`source ${source.type} is not configured`)
      }
    }
    // A run whose end is already recorded is not joined: the caller would be
    // handed a finished run. Wait for it to let go of the lock, then start anew.
    for (let active = this.active; active; active = this.active) {
      if (!active.ended) return active
      await active.done.catch(() => undefined)
    }
    this.starting ??= this.launch(request).finally(() => (this.starting = null))
    return this.starting
  }

  /** Waits for the run of this process, if any (shutdown). */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined)
    await this.active?.done
    LIVE_OWNERS.delete(this.owner)
  }

  private async launch(request: SyncRequest): Promise<StartedRun> {
    const record: SyncRunRecord = {
      run: {
        id: newRunId(),
        source: request.source,
        trigger: request.trigger,
        started_at: isoNow(this.ctx.clock),
        completed_at: null,
        status: 'running',
        error: null,
        counts: {},
        warnings: [],
      },
      sourceErrors: {},
    }
    // The run row is written as the lock is taken: on SQLite the row is the lock.
    const held = await this.lock.tryAcquire(async (db) => {
      await this.markOrphans(db)
      await insertRun(db, record, this.owner)
    })
    if (!held) return this.joinOther(request)
    let ended = false
    const done = this.execute(record, held, () => (ended = true)).finally(() => {
      this.active = null
    })
    this.active = {
      run_id: record.run.id,
      done,
      get ended() {
        return ended
      },
    }
    return this.active
  }

  // With the lock held, any run still marked running belongs to a dead process.
  private async markOrphans(db: DbExecutor = this.ctx.db.kysely): Promise<void> {
    const orphans = await runningRuns(db)
    if (orphans.length === 0) return
    await markInterrupted(
      db,
      orphans.map((r) => r.id),
      isoNow(this.ctx.clock),
    )
    this.ctx.log.warn({ runs: orphans.map((r) => r.id) }, 'sync: marked interrupted runs as error')
  }

  /** Another process runs a sync: hand out its id and follow it to the end. */
  private async joinOther(request: SyncRequest): Promise<StartedRun> {
    for (let attempt = 0; attempt < JOIN_FIND_ATTEMPTS; attempt++) {
      const [running] = await runningRuns(this.ctx.db.kysely)
      if (running) return { run_id: running.id, done: this.follow(running.id) }
      // The holder has the lock but has not written its row yet, or just finished.
      const held = await this.lock.tryAcquire()
      if (held) {
        await held.release()
        return this.launch(request)
      }
      await sleep(JOIN_POLL_MS / 5)
    }
    throw new Conflict('another process is starting a sync; try again')
  }

  private async follow(runId: string): Promise<SyncRunJson> {
    for (;;) {
      const record = await findRun(this.ctx.db.kysely, runId)
      if (!record) throw new Error(`sync: run ${runId} disappeared`)
      if (record.run.status !== 'running') return record.run
      // Free lock while the row says running: its process died; record that.
      const held = await this.lock.tryAcquire((db) => this.markOrphans(db))
      if (held) {
        await held.release()
        continue
      }
      await sleep(JOIN_POLL_MS)
    }
  }

  private async execute(
    record: SyncRunRecord,
    held: HeldLock,
    ended: () => void,
  ): Promise<SyncRunJson> {
    const { ctx } = this
    const { run } = record
    try {
      const wanted = this.sources.filter((s) => run.source === null || s.type === run.source)
      const started = await Promise.all(wanted.map((s) => isStarted(s, this.sourceContext)))
      const sources = wanted.filter((_, index) => started[index])
      // Side by side (SPEC 1.1); their units of work interleave on the database.
      // One bulk stretch for the whole run: SQLite checkpoints once, at its end.
      await duringBulkWrites(ctx.db.kysely, async () => {
        await buildIndexesDeferredByImport(ctx)
        const firstImport = new FirstImportIndexes(ctx, run.started_at)
        try {
          await Promise.all(sources.map((source) => this.runSource(source, record, firstImport)))
        } finally {
          await buildIndexesDeferredByImport(ctx)
        }
      })
      const failed = Object.keys(record.sourceErrors)
      run.status =
        failed.length === 0 ? 'success' : failed.length === sources.length ? 'error' : 'partial'
      run.error =
        failed.length === 0
          ? null
          : failed.map((type) => `${type}: ${record.sourceErrors[type]}`).join('; ')
    } catch (error) {
      run.status = 'error'
      run.error = this.describe(error)
    }
    // From here on a trigger starts the next run instead of joining this one,
    // so that no caller is handed a run that has already ended.
    ended()
    try {
      await ctx.ledger.mutate(async (uow) => {
        run.completed_at = uow.now
        await finishRun(uow.trx, record)
        uow.emit({ type: 'sync.completed', entity_type: 'sync', entity_id: run.id, data: run })
      })
      ctx.metrics.syncRuns.inc({ status: run.status })
      ctx.log.info(
        { run_id: run.id, status: run.status, counts: run.counts, warnings: run.warnings.length },
        'sync finished',
      )
    } catch (error) {
      // The row stays `running`; the next start or run marks it interrupted.
      ctx.log.error({ err: error, run_id: run.id }, 'sync: could not record the end of a run')
    } finally {
      await held.release()
    }
    return run
  }

  private async runSource(
    source: Source,
    record: SyncRunRecord,
    firstImport: FirstImportIndexes,
  ): Promise<void> {
    const { run } = record
    const counts = zeroCounts()
    run.counts[source.type] = counts
    const progress = (phase: SyncProgress['phase'], rows: number) =>
      this.emitProgress({ run_id: run.id, source: source.type, phase, rows })
    progress('started', 0)
    let rows = 0
    try {
      const batch = await source.fetch({ ...this.sourceContext, trigger: run.trigger })
      if (isSkip(batch)) {
        // Not connected or nothing to fetch: skipped, not an error (SPEC 1.1).
        run.warnings.push(`${source.type}: skipped: ${batch.skip}`)
        progress('skipped', 0)
        return
      }
      await mergeBatch(
        this.ctx,
        source.type,
        batch,
        counts,
        (merged) => {
          rows = merged
          progress('rows', merged)
        },
        (unitRows) => firstImport.beforeUnit(unitRows),
      )
      // A source's warnings may quote what its peer said: masked like errors.
      run.warnings.push(...batch.summary().warnings.map((w) => `${source.type}: ${this.redact(w)}`))
      progress('finished', rows)
    } catch (error) {
      record.sourceErrors[source.type] = this.describe(error)
      this.ctx.log.warn({ source: source.type, err: this.describe(error) }, 'sync: source failed')
      progress('failed', rows)
    } finally {
      for (const [outcome, n] of Object.entries(counts)) {
        this.ctx.metrics.syncRows.inc({ source: source.type, outcome }, n)
      }
    }
  }

  /** An error's message for the run record; known secrets are masked as a last guard. */
  private describe(error: unknown): string {
    return this.redact(error instanceof Error ? error.message : String(error))
  }

  /** Text for the run record with the configuration's secrets masked. */
  private redact(text: string): string {
    return redactText(text, configSecrets(this.ctx.config))
  }

  private emitProgress(progress: SyncProgress): void {
    for (const listener of this.listeners) {
      try {
        listener(progress)
      } catch {
        // A broken progress display must not break the sync.
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
