// The secret store (DESIGN "Security posture"): third-party secrets such as the
// drive refresh token. On SQLite it is one JSON file under data.dir with mode
// 0600; on PostgreSQL it is the `secrets` table, so that every process sharing
// the database shares it. Values never appear in a response, error, log or event:
// nothing here puts a value into a message, and callers only ever read them.
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Config } from '../config/index.js'
import type { Db } from '../db/connect.js'
import { isSingleHostDatabase } from '../db/dialect.js'
import { AsyncLock } from '../async-lock.js'
import { Unavailable } from '../errors.js'
import { isoNow, type Clock } from '../clock.js'

export interface SecretStore {
  get(name: string): Promise<string | null>
  set(name: string, value: string): Promise<void>
  delete(name: string): Promise<void>
  /**
   * Read-modify-write of one secret, one at a time in this process, so that two
   * requests changing it together both land. `change` answers the new value,
   * null to delete it, or the value it was given to leave it as it is.
   */
  update(name: string, change: (current: string | null) => Promise<string | null>): Promise<void>
}

export const SECRETS_FILE_NAME = 'secrets.json'

/** The store for this engine: the file under data.dir, or the table on PostgreSQL. */
export function openSecretStore(config: Config, db: Db, clock: Clock): SecretStore {
  // A file is shared only by processes on one machine; a table by all of them.
  return isSingleHostDatabase(db.kysely)
    ? new FileSecretStore(join(config.data.dir, SECRETS_FILE_NAME))
    : new TableSecretStore(db, clock)
}

export class FileSecretStore implements SecretStore {
  // Writes of this process run one at a time; each re-reads the file first, so a
  // `coffer sync` process beside `coffer serve` sees the other's changes.
  private readonly writes = new AsyncLock()

  constructor(readonly path: string) {}

  async get(name: string): Promise<string | null> {
    const all = await this.readAll()
    return Object.hasOwn(all, name) ? all[name]! : null
  }

  set(name: string, value: string): Promise<void> {
    return this.update(name, async () => value)
  }

  delete(name: string): Promise<void> {
    return this.update(name, async () => null)
  }

  update(name: string, change: (current: string | null) => Promise<string | null>): Promise<void> {
    return this.writes.run(async () => {
      const all = await this.readAll()
      const current = Object.hasOwn(all, name) ? all[name]! : null
      const value = await change(current)
      if (value === current) return
      if (value === null) delete all[name]
      else all[name] = value
      await this.writeAll(all)
    })
  }

  private async readAll(): Promise<Record<string, string>> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw storeUnusable('read', this.path, error)
    }
    try {
      const parsed = JSON.parse(text) as unknown
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        return parsed as Record<string, string>
      }
    } catch {
      // fall through: the message must not quote the file's contents
    }
    throw new Error(`secrets: ${this.path} is not a JSON object`)
  }

  private async writeAll(all: Record<string, string>): Promise<void> {
    const dir = join(this.path, '..')
    // Write a sibling with mode 0600, then rename over the file: a reader never
    // sees half a file, and the secret never exists with wider permissions.
    const tmp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 })
      await writeFile(tmp, JSON.stringify(all), { mode: 0o600 })
      await chmod(tmp, 0o600)
      await rename(tmp, this.path)
    } catch (error) {
      await rm(tmp, { force: true })
      throw storeUnusable('write', this.path, error)
    }
  }
}

/**
 * The file cannot be used (data.dir unwritable, a file in its place): a 503 that
 * names the file and the reason, for the operator to fix, never the contents.
 */
function storeUnusable(action: 'read' | 'write', path: string, error: unknown): Unavailable {
  const code = (error as NodeJS.ErrnoException).code
  const reason = code ? ` (${code})` : ''
  return new Unavailable(
    `the secret store ${path} cannot be ${action === 'read' ? 'read' : 'written'}${reason}; ` +
      'data.dir must be a folder this service can write',
  )
}

export class TableSecretStore implements SecretStore {
  // Read-modify-writes of this process run one at a time (SecretStore.update).
  private readonly updates = new AsyncLock()

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async get(name: string): Promise<string | null> {
    const row = await this.db.kysely
      .selectFrom('secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst()
    return row?.value ?? null
  }

  async set(name: string, value: string): Promise<void> {
    const now = isoNow(this.clock)
    await this.db.kysely
      .insertInto('secrets')
      .values({ name, value, updated_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
      .execute()
  }

  async delete(name: string): Promise<void> {
    await this.db.kysely.deleteFrom('secrets').where('name', '=', name).execute()
  }

  update(name: string, change: (current: string | null) => Promise<string | null>): Promise<void> {
    return this.updates.run(async () => {
      const current = await this.get(name)
      const value = await change(current)
      if (value === current) return
      if (value === null) await this.delete(name)
      else await this.set(name, value)
    })
  }
}
