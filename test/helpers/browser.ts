// The dashboard in a real browser: Debian's Chromium driven by playwright-core
// against a real `coffer serve` (a child process on SQLite, port 0). Every test
// checks, at its end, that the pages requested nothing outside the service and
// logged no console error; screenshots go to test-artifacts/screenshots/.
// scripts/run-tests.mjs builds the dashboard and installs chromium when missing.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { requester, type TestApp } from './app.js'
import { CHECKOUT, cofferArgs } from './program.js'

export const SCREENSHOT_DIR = join(CHECKOUT, 'test-artifacts/screenshots')

export const DESKTOP = { width: 1280, height: 860 }
export const PHONE = { width: 390, height: 844 }

/** Debian's Chromium (or COFFER_CHROMIUM), never a browser download. */
export function chromiumPath(): string {
  const candidates = [process.env.COFFER_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  const found = candidates.find((path) => path && existsSync(path))
  if (!found) {
    throw new Error(
      'chromium is not installed: `apt-get install chromium` (npm test does it as root)',
    )
  }
  return found
}

let shared: Promise<Browser> | null = null
/** One browser per test file; each test gets its own context (storage, viewport). */
export function browser(): Promise<Browser> {
  shared ??= chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  })
  return shared
}

/**
 * Runs an expression in the page and returns its value. A string, since this
 * project is compiled without the DOM's types (they clash with Node's).
 */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate<T>(expression)
}

export async function closeBrowser(): Promise<void> {
  if (shared) await (await shared).close()
  shared = null
}

export interface Serve {
  url: string
  dir: string
  request: TestApp['request']
  output(): string
  child: ChildProcess
}

/** `coffer serve` on a fresh SQLite ledger; extra SERVICE_* variables in `env`. */
export async function serve(t: TestContext, env: Record<string, string> = {}): Promise<Serve> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-web-'))
  const childEnv: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_')) childEnv[name] = value
  }
  Object.assign(childEnv, {
    SERVICE_SERVER_ADDR: '127.0.0.1:0',
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_SYNC_INTERVAL: '0',
    SERVICE_AUTH_MAX_FAILURES: '100000',
    ...env,
  })
  const child = spawn(process.execPath, cofferArgs(['serve']), {
    cwd: dir,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk))
  let gone = false
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()))
  void exited.then(() => (gone = true))
  t.after(async () => {
    if (!gone) {
      child.kill('SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
      if (!gone) child.kill('SIGKILL')
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const deadline = Date.now() + 60_000
  for (;;) {
    const match = /listening on (http:\/\/[^\s"]+)/.exec(output)
    if (match) {
      const url = match[1]!
      return { url, dir, request: requester(url), output: () => output, child }
    }
    if (gone || Date.now() > deadline) throw new Error(`coffer serve did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export interface Dashboard {
  server: Serve
  context: BrowserContext
  page: Page
  /** Opens a path of the dashboard and waits for the page to settle. */
  goto(path: string): Promise<void>
  /** Saves a screenshot of the current page as <name>-desktop.png (or -phone). */
  screenshot(name: string): Promise<string>
  /** The same path in a phone-sized viewport (390×844), screenshot saved as <name>-phone.png. */
  phone(path: string, name: string, act?: (page: Page) => Promise<void>): Promise<Page>
}

export interface DashboardOptions {
  /** Kept in the browser's storage before the first page loads (signed in). */
  token?: string
  viewport?: { width: number; height: number }
  colorScheme?: 'light' | 'dark'
  /** Console errors the test provokes on purpose (a restart refuses connections for a moment). */
  expectedConsoleErrors?: RegExp
}

/**
 * A browser context on `server`, watched: a request to any other origin or a
 * console error fails the test at its end (the service's own 4xx answers that a
 * test provokes on purpose are not errors of the page, so failed responses are
 * not counted; uncaught exceptions are).
 */
export async function openDashboard(
  t: TestContext,
  server: Serve,
  options: DashboardOptions = {},
): Promise<Dashboard> {
  const origin = new URL(server.url).origin
  const outside: string[] = []
  const errors: string[] = []
  const contexts: BrowserContext[] = []

  const newContext = async (viewport: { width: number; height: number }) => {
    const context = await (
      await browser()
    ).newContext({
      viewport,
      colorScheme: options.colorScheme ?? 'light',
      serviceWorkers: 'block',
    })
    contexts.push(context)
    if (options.token !== undefined) {
      // Once per tab (a later sign-out must stick), and only on the service's
      // pages (about:blank has no storage).
      // A script of text: this file is compiled without the DOM's types.
      const seed = JSON.stringify({ token: options.token, origin })
      await context.addInitScript({
        content: `(() => {
          const { token, origin } = ${seed}
          if (location.origin !== origin) return
          if (sessionStorage.getItem('coffer.test.seeded') === null) {
            localStorage.setItem('coffer.token', token)
            sessionStorage.setItem('coffer.test.seeded', '1')
          }
        })()`,
      })
    }
    context.on('request', (request) => {
      const url = request.url()
      if (!url.startsWith(`${origin}/`) && !/^(data|blob|about):/.test(url)) outside.push(url)
    })
    context.on('page', (page) => watch(page))
    return context
  }
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      // Once the test has stopped the server, a page still polling it fails to connect.
      if (server.child.killed || server.child.exitCode !== null) return
      const text = message.text()
      // Chromium logs every non-2xx fetch as a console error; the answers a test
      // provokes (a 400 for a bad query, a 409) are the service speaking, not the page failing.
      if (/^Failed to load resource: the server responded with a status of [45]\d\d/.test(text))
        return
      if (options.expectedConsoleErrors?.test(text)) return
      errors.push(text)
    })
    page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`))
  }

  const context = await newContext(options.viewport ?? DESKTOP)
  const page = await context.newPage()

  t.after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    assert.deepEqual(outside, [], 'the dashboard requested something outside the service')
    assert.deepEqual(errors, [], 'the dashboard logged console errors')
  })

  const settle = async (p: Page) => {
    await p.waitForLoadState('networkidle')
  }
  const save = async (p: Page, file: string) => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true })
    const path = join(SCREENSHOT_DIR, file)
    await p.screenshot({ path, fullPage: true })
    return path
  }

  return {
    server,
    context,
    page,
    async goto(path) {
      await page.goto(`${server.url}${path}`)
      await settle(page)
    },
    screenshot: (name) => save(page, `${name}-desktop.png`),
    async phone(path, name, act) {
      const phoneContext = await newContext(PHONE)
      const phonePage = await phoneContext.newPage()
      await phonePage.goto(`${server.url}${path}`)
      await settle(phonePage)
      if (act) await act(phonePage)
      await save(phonePage, `${name}-phone.png`)
      return phonePage
    },
  }
}

/** Writes a small file (e.g. a CSV for a source folder) and returns its path. */
export function writeFixture(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
