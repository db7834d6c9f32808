// One sync at a time, across processes (DESIGN "Storage"). On PostgreSQL a
// session-level advisory lock, held on a dedicated connection for the whole run.
// On SQLite (one machine, one file) the running row itself is the lock: its
// owner names a host, a process id and an instance; the run is alive while that
// process is. Taking it is a write: one transaction (which holds SQLite's write
// lock from its first statement, see db/connect.ts) looks for a live run and
// inserts this one, so two processes cannot both find none and both start.
// Both only ever try: a caller that does not get the lock joins the run that
// holds it instead of waiting in line.
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { sql } from 'kysely'
import type { Db } from '../db/connect.js'
import { hasSessionLocks } from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import { runningRuns } from './runs.js'

// The lock is (class, schema): any class constant works as long as every Coffer
// process uses it; the second key is the schema, so that instances sharing one
// database in separate schemas do not block each other.
const SYNC_LOCK_CLASS = 0x436f6653

/** host:pid:instance of this engine; `instance` tells apart two engines of one process. */
export function ownerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
}

export interface HeldLock {
  release(): Promise<void>
}

/** What the new holder writes as it takes the lock (its run row), atomically with it on SQLite. */
export type Claim = (db: DbExecutor) => Promise<void>

export interface RunLock {
  /** The lock, with `claim` done under it; null (and nothing claimed) when another process's run holds it. */
  tryAcquire(claim?: Claim): Promise<HeldLock | null>
}

export function runLockFor(db: Db, owner: string, liveOwners: ReadonlySet<string>): RunLock {
  return hasSessionLocks(db.kysely)
    ? new AdvisoryRunLock(db)
    : new OwnerRunLock(db, owner, liveOwners)
}

class AdvisoryRunLock implements RunLock {
  constructor(private readonly db: Db) {}

  async tryAcquire(claim?: Claim): Promise<HeldLock | null> {
    const held = await this.acquire()
    if (!held || !claim) return held
    try {
      await claim(this.db.kysely)
    } catch (error) {
      await held.release()
      throw error
    }
    return held
  }

  private acquire(): Promise<HeldLock | null> {
    return new Promise((resolve, reject) => {
      let settled = false
      let release!: () => void
      const released = new Promise<void>((r) => (release = r))
      // The callback keeps its connection until the lock is released: a session
      // lock belongs to the connection that took it, and dies with it.
      const finished = this.db.kysely.connection().execute(async (conn) => {
        const { rows } = await sql<{
          ok: boolean
        }>`select pg_try_advisory_lock(${SYNC_LOCK_CLASS}, hashtext(current_schema())) as ok`.execute(
          conn,
        )
        if (!rows[0]?.ok) {
          settled = true
          resolve(null)
          return
        }
        settled = true
        resolve({
          release: async () => {
            release()
            await finished.catch(() => undefined)
          },
        })
        await released
        await sql`select pg_advisory_unlock(${SYNC_LOCK_CLASS}, hashtext(current_schema()))`.execute(
          conn,
        )
      })
      finished.catch((error: unknown) => {
        if (!settled) reject(error instanceof Error ? error : new Error(String(error)))
      })
    })
  }
}

class OwnerRunLock implements RunLock {
  constructor(
    private readonly db: Db,
    private readonly owner: string,
    private readonly liveOwners: ReadonlySet<string>,
  ) {}

  async tryAcquire(claim?: Claim): Promise<HeldLock | null> {
    return this.db.kysely.transaction().execute(async (trx) => {
      for (const run of await runningRuns(trx)) {
        if (run.owner !== this.owner && ownerAlive(run.owner, this.liveOwners)) return null
      }
      await claim?.(trx)
      // Released by the run row itself leaving `running`.
      return { release: async () => undefined }
    })
  }
}

/** Whether the process named by an owner id still runs (SQLite deployments: one host). */
function ownerAlive(owner: string, liveOwners: ReadonlySet<string>): boolean {
  const [host, pidText] = owner.split(':')
  const pid = Number(pidText)
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0) return false
  // Another engine in this very process (tests run several apps in one process).
  if (pid === process.pid) return liveOwners.has(owner)
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
