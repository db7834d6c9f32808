// The `coffer` program spawned as a user runs it (helpers/program.ts): one
// command to completion, or a command left running (`serve`, a long `sync`)
// with its output collected.
import { spawn, type ChildProcess } from 'node:child_process'
import type { TestContext } from 'node:test'
import { cofferArgs } from './program.js'

/** Generous: a start on a possibly busy machine. */
const DEADLINE_MS = 120_000

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

export interface Running {
  child: ChildProcess
  output(): string
  /** The exit, with everything the command wrote. */
  done: Promise<CliRun>
}

/** The parent's environment without any SERVICE_* or COFFER_CONFIG variable, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('SERVICE_') && name !== 'COFFER_CONFIG') out[name] = value
  }
  return { ...out, ...env }
}

/** Starts `coffer <args>`; it is killed when the test ends if still running. */
export function startCli(
  t: TestContext,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: { terminal?: boolean } = {},
): Running {
  const argv = [process.execPath, ...cofferArgs(args)]
  // util-linux `script` runs the command on a pseudo-terminal (stdout and stderr
  // both reach us through it), as a person at a terminal would see it.
  const [command, ...rest] = options.terminal
    ? ['script', '-qec', argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' '), '/dev/null']
    : argv
  const child = spawn(command!, rest, {
    cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  const done = new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`coffer ${args[0]} did not exit in time:\n${stdout}\n${stderr}`))
    }, DEADLINE_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
  return { child, output: () => stdout + stderr, done }
}

/** Runs `coffer <args>` to completion (on a pseudo-terminal with `terminal`). */
export function runCli(
  t: TestContext,
  args: string[],
  env: Record<string, string>,
  cwd: string,
  options: { terminal?: boolean } = {},
): Promise<CliRun> {
  return startCli(t, args, env, cwd, options).done
}

/** Starts `coffer serve` and waits for its listening line; `stop` sends SIGTERM and waits. */
export async function serveCli(
  t: TestContext,
  env: Record<string, string>,
  cwd: string,
  args: string[] = [],
): Promise<{ url: string; stop(): Promise<CliRun> }> {
  const running = startCli(t, ['serve', ...args], env, cwd)
  const url = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(running.output())
      if (match) resolve(match[1]!)
      return match !== null
    }
    running.child.stdout!.on('data', check)
    running.child.stderr!.on('data', check)
    running.done.then(
      (r) => reject(new Error(`coffer serve exited early (${r.code}):\n${r.stderr}`)),
      reject,
    )
  })
  return {
    url,
    stop() {
      running.child.kill('SIGTERM')
      return running.done
    },
  }
}
