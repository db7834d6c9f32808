// A bare service context for unit tests: a fresh SQLite database in a temp
// folder, migrated, with nothing running (no HTTP, no sync schedule, no webhook
// dispatcher, no search indexer) unless the test starts it. Closed and removed
// when the test ends.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { TestContext } from 'node:test'
import { openServiceContext } from '../../src/app.js'
import { loadConfig } from '../../src/config/index.js'
import type { ServiceContext } from '../../src/context.js'
import type { Clock } from '../../src/clock.js'
import { createLogger } from '../../src/log.js'

export async function bareContext(
  t: TestContext,
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<ServiceContext> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-unit-'))
  const { config } = loadConfig({
    file: null,
    env: {
      SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
      SERVICE_DATA_DIR: join(dir, 'data'),
      ...options.env,
    },
  })
  const quiet = new Writable({ write: (_c, _e, cb) => cb() })
  const ctx = await openServiceContext(config, {
    ...(options.clock ? { clock: options.clock } : {}),
    logger: createLogger({ level: 'error', format: 'json', destination: quiet }),
  })
  t.after(async () => {
    await ctx.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return ctx
}
