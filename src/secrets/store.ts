// The secret store (DESIGN "Security posture"): third-party secrets such as the
// drive refresh token. On SQLite it is one JSON file under data.dir with mode
// 0600; on PostgreSQL it is the `secrets` table, so that every process sharing
// the database shares it. Values never appear in a response, error, log or event:
// nothing here puts a value into a message, and callers only ever read them.
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ServiceContext } from '../context.js'
import { isoNow } from '../ledger/time.js'

export interface SecretStore {
  get(name: string): Promise<string | null>
  set(name: string, value: string): Promise<void>
  delete(name: string): Promise<void>
}

export const SECRETS_FILE_NAME = 'secrets.json'

/** The store of this context's engine (one per context, built on first use). */
export function secretStoreFor(ctx: ServiceContext): SecretStore {
  let store = stores.get(ctx)
  if (!store) {
    store =
      ctx.db.dialect === 'postgres'
        ? new TableSecretStore(ctx)
        : new FileSecretStore(join(ctx.config.data.dir, SECRETS_FILE_NAME))
    stores.set(ctx, store)
  }
  return store
}

// Keyed by the context so that two apps in one process (tests) never share one.
const stores = new WeakMap<ServiceContext, SecretStore>()

export class FileSecretStore implements SecretStore {
  // Writes of this process run one at a time; each re-reads the file first, so a
  // `coffer sync` process beside `coffer serve` sees the other's changes.
  private queue: Promise<unknown> = Promise.resolve()

  constructor(readonly path: string) {}

  async get(name: string): Promise<string | null> {
    const all = await this.readAll()
    return Object.hasOwn(all, name) ? all[name]! : null
  }

  set(name: string, value: string): Promise<void> {
    return this.update((all) => {
      all[name] = value
    })
  }

  delete(name: string): Promise<void> {
    return this.update((all) => {
      delete all[name]
    })
  }

  private update(change: (all: Record<string, string>) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const all = await this.readAll()
      change(all)
      await this.writeAll(all)
    })
    this.queue = next.catch(() => undefined)
    return next
  }

  private async readAll(): Promise<Record<string, string>> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new Error(`secrets: cannot read ${this.path}`, { cause: error })
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
    await mkdir(dir, { recursive: true, mode: 0o700 })
    // Write a sibling with mode 0600, then rename over the file: a reader never
    // sees half a file, and the secret never exists with wider permissions.
    const tmp = `${this.path}.${randomBytes(6).toString('hex')}.tmp`
    try {
      await writeFile(tmp, JSON.stringify(all), { mode: 0o600 })
      await chmod(tmp, 0o600)
      await rename(tmp, this.path)
    } catch (error) {
      await rm(tmp, { force: true })
      throw new Error(`secrets: cannot write ${this.path}`, { cause: error })
    }
  }
}

export class TableSecretStore implements SecretStore {
  constructor(private readonly ctx: ServiceContext) {}

  async get(name: string): Promise<string | null> {
    const row = await this.ctx.db.kysely
      .selectFrom('secrets')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst()
    return row?.value ?? null
  }

  async set(name: string, value: string): Promise<void> {
    const now = isoNow(this.ctx.clock)
    await this.ctx.db.kysely
      .insertInto('secrets')
      .values({ name, value, updated_at: now })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
      .execute()
  }

  async delete(name: string): Promise<void> {
    await this.ctx.db.kysely.deleteFrom('secrets').where('name', '=', name).execute()
  }
}
