// Shared steps of the sync and CSV integration tests: folders of real CSV files
// in a temp directory, an app configured with them, and a sync run to completion.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { eventsAfter as readEventsAfter, type LogRead } from './helpers/ledger.js'
import { startTestApp, type TestAppHandle, type TestAppOptions } from './helpers/app.js'
import { expectStatus, type Json } from './helpers/http.js'

export type { Json }
// One reader of the log head for every integration test.
export { headSequence } from './helpers/ledger.js'

/** Events after a sequence (all pages, envelopes checked), as loosely typed as these tests read them. */
export function eventsAfter(
  app: TestAppHandle,
  after: number,
  read: LogRead = {},
): Promise<Json[]> {
  return readEventsAfter(app, after, read)
}

export interface FolderSpec {
  name: string
  account?: string
  org?: string
  currency?: string
  backend?: 'local' | 'drive'
  folder_id?: string
  mapping?: Record<string, unknown>
  /** File name → contents (local folders). */
  files?: Record<string, string | Buffer>
}

/** A temp directory removed after the test. */
export function tempDir(t: TestContext, label = 'csv'): string {
  const dir = mkdtempSync(join(tmpdir(), `coffer-${label}-`))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Writes the local folders under `root` and returns the csv.folders value. */
export function writeFolders(root: string, folders: FolderSpec[]): unknown[] {
  return folders.map((f) => {
    const entry: Record<string, unknown> = {
      name: f.name,
      account: f.account ?? f.name,
      ...(f.org ? { org: f.org } : {}),
      ...(f.currency ? { currency: f.currency } : {}),
      ...(f.mapping ? { mapping: f.mapping } : {}),
    }
    if (f.backend === 'drive') {
      entry.backend = 'drive'
      entry.folder_id = f.folder_id
      return entry
    }
    const path = join(root, f.name.replace(/[^A-Za-z0-9]+/g, '_'))
    mkdirSync(path, { recursive: true })
    for (const [file, text] of Object.entries(f.files ?? {})) writeFileSync(join(path, file), text)
    entry.path = path
    return entry
  })
}

export async function startCsvApp(
  t: TestContext,
  folders: FolderSpec[],
  options: TestAppOptions & { root?: string } = {},
): Promise<{ app: TestAppHandle; root: string }> {
  const root = options.root ?? tempDir(t)
  const app = await startTestApp(t, {
    ...options,
    env: { SERVICE_CSV_FOLDERS: JSON.stringify(writeFolders(root, folders)), ...options.env },
  })
  return { app, root }
}

/** Polls GET /sync until the run is over; returns it. */
export async function waitForRun(app: TestAppHandle, runId: string, token?: string): Promise<Json> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const history = await expectStatus(
      app,
      'GET',
      '/api/v1/sync/history?limit=20',
      200,
      undefined,
      {
        token,
      },
    )
    const run = history.runs.find((r: Json) => r.id === runId)
    if (run && run.status !== 'running') return run
    if (Date.now() > deadline) throw new Error(`run ${runId} did not finish`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** POST /sync (or /sources/{type}/sync) and wait for the run to finish. */
export async function syncNow(
  app: TestAppHandle,
  path = '/api/v1/sync',
  token?: string,
): Promise<Json> {
  const started = await expectStatus(app, 'POST', path, 202, undefined, { token })
  assert.deepEqual(Object.keys(started), ['run_id'])
  return waitForRun(app, started.run_id, token)
}

/** Every transaction of an account (pages of 1000). */
export async function allTransactions(
  app: TestAppHandle,
  accountId: string,
  token?: string,
): Promise<Json[]> {
  const out: Json[] = []
  for (let offset = 0; ; offset += 1000) {
    const page = await expectStatus(
      app,
      'GET',
      `/api/v1/accounts/${encodeURIComponent(accountId)}/transactions?limit=1000&offset=${offset}`,
      200,
      undefined,
      { token },
    )
    out.push(...page.transactions)
    if (page.transactions.length < 1000) return out
  }
}
