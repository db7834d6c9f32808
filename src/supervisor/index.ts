// Restarting `coffer serve` by itself (CONTRACT 10: POST /system/restart and a
// self-update "re-execute the process" with the same arguments, environment and
// address). Node 20 cannot exec in place, so the first process to restart stays
// as a small supervisor under the PID that systemd, a container or `npm start`
// watches: it drains its service, then runs the same command as a child and
// relays signals and the exit status. Later restarts go through it: the child
// asks over IPC and exits, the supervisor starts the command again, which loads
// the code on disk afresh (a new version after an update).
//
// After an update the supervisor waits for the new child's /readyz; if it does
// not answer 200 within UPDATE_HEALTH_TIMEOUT_MS, or the child exits first, the
// release is swapped out again and the old version started (install.ts rollBack).
import { spawn, type ChildProcess } from 'node:child_process'
import { dirname } from 'node:path'
import type { Logger } from 'pino'
import { confirmSwap, readJournal, rollBack } from '../update/install.js'

/** Set in the children the supervisor starts. */
const SUPERVISED_ENV = 'COFFER_SUPERVISED'
export const UPDATE_HEALTH_TIMEOUT_MS = 60_000
const HEALTH_POLL_MS = 250

export interface RelaunchRequest {
  reason: 'restart' | 'update'
  /** After an update: the swap journal to confirm or roll back. */
  journal?: string | undefined
}

type ChildMessage =
  { type: 'coffer:relaunch'; request: RelaunchRequest } | { type: 'coffer:listening'; url: string }

export function isSupervised(): boolean {
  return process.env[SUPERVISED_ENV] === '1' && typeof process.send === 'function'
}

/** In a supervised child: tell the supervisor where this process listens. */
export function reportListening(url: string): void {
  if (isSupervised()) process.send?.({ type: 'coffer:listening', url } satisfies ChildMessage)
}

/**
 * Called once the service has drained: a supervised child asks for the
 * relaunch and exits; the first process becomes the supervisor (never returns).
 */
export async function relaunch(request: RelaunchRequest, log: Logger): Promise<void> {
  if (isSupervised()) {
    await new Promise<void>((done) =>
      process.send!({ type: 'coffer:relaunch', request } satisfies ChildMessage, () => done()),
    )
    process.exit(0)
  }
  await supervise(request, log)
}

async function supervise(first: RelaunchRequest, log: Logger): Promise<void> {
  let child: ChildProcess | null = null
  let pending: RelaunchRequest | null = first
  let stopping: NodeJS.Signals | null = null
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal)
    process.on(signal, () => {
      stopping = signal
      if (child && child.exitCode === null) child.kill(signal)
      else process.exit(0)
    })
  }
  log.info({ pid: process.pid }, 'restart: this process now supervises the service')
  for (;;) {
    const request: RelaunchRequest = pending ?? { reason: 'restart' }
    const started = start()
    child = started.child
    if (request.journal && (await watchUpdate(started, request.journal, log)) === 'rolled back') {
      pending = { reason: 'restart' } // the old version, back in place
      continue
    }
    const code = await started.exited
    pending = started.relaunch()
    if (stopping || !pending) process.exit(code)
  }
}

interface Started {
  child: ChildProcess
  exited: Promise<number>
  listening: Promise<string | null>
  relaunch(): RelaunchRequest | null
}

/** The same command, arguments and environment, as a supervised child. */
function start(): Started {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, [SUPERVISED_ENV]: '1' },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  })
  let relaunch: RelaunchRequest | null = null
  let onListening: (url: string | null) => void = () => {}
  const listening = new Promise<string | null>((resolve) => (onListening = resolve))
  child.on('message', (message: ChildMessage) => {
    if (message?.type === 'coffer:relaunch') relaunch = message.request
    if (message?.type === 'coffer:listening') onListening(message.url)
  })
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => {
      onListening(null)
      resolve(code ?? (signal === 'SIGTERM' || signal === 'SIGINT' ? 0 : 1))
    }),
  )
  return { child, exited, listening, relaunch: () => relaunch }
}

/** Waits for the new version's /readyz; rolls the release back when it does not come. */
async function watchUpdate(
  started: Started,
  journalFile: string,
  log: Logger,
): Promise<'healthy' | 'rolled back'> {
  const journal = await readJournal(dirname(dirname(journalFile)))
  if (!journal) return 'healthy'
  const deadline = Date.now() + UPDATE_HEALTH_TIMEOUT_MS
  const timeout = new Promise<null>((resolve) =>
    setTimeout(() => resolve(null), UPDATE_HEALTH_TIMEOUT_MS).unref(),
  )
  const url = await Promise.race([started.listening, timeout])
  let healthy = false
  while (url && !healthy && Date.now() < deadline && started.child.exitCode === null) {
    healthy = await ready(url)
    if (!healthy) await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS))
  }
  if (healthy) {
    await confirmSwap(journal)
    log.info({ version: journal.to }, 'update: the new version is healthy')
    return 'healthy'
  }
  log.error(
    { from: journal.from, to: journal.to, exit_code: started.child.exitCode },
    `update: version ${journal.to} did not become ready; putting ${journal.from} back`,
  )
  if (started.child.exitCode === null) {
    started.child.kill('SIGKILL')
    await started.exited
  }
  await rollBack(journal)
  return 'rolled back'
}

async function ready(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) })
    await response.body?.cancel()
    return response.status === 200
  } catch {
    return false
  }
}
