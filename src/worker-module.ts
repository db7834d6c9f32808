// Starting a worker thread from a module that sits beside its caller: the built
// `.js` in dist/, or the `.ts` source when the service runs under tsx (tests,
// `npm run bench`). Node 20 does not carry tsx's --import hooks into workers, so
// under tsx the worker registers tsx itself before it loads the TypeScript module.
import { readFileSync, readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'
import { Worker, type WorkerOptions } from 'node:worker_threads'

/** The URL of `<name>.ts` or `<name>.js` beside `callerUrl` (pass import.meta.url). */
export function besideModule(callerUrl: string, name: string): URL {
  return new URL(`./${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl)
}

export function startModuleWorker(url: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (url.pathname.endsWith('.js')) return new Worker(url, options)
  const tsx = import.meta.resolve('tsx/esm/api')
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}

/** The calling thread's id in the kernel (Linux), or null where it cannot be read. */
export function thisThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isInteger(tid) && tid > 0 ? tid : null
  } catch {
    return null
  }
}

/**
 * The CPU time a thread of this process has used, in milliseconds, from the
 * kernel's scheduler statistics (nanoseconds on the CPU); null where the system
 * keeps none or the thread has ended. Any thread may read any other's.
 */
export function threadCpuMs(tid: number): number | null {
  try {
    const onCpuNs = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[0])
    return Number.isFinite(onCpuNs) ? onCpuNs / 1e6 : null
  } catch {
    return null
  }
}

/**
 * Lowers the CPU priority of the calling thread (Linux: a thread has its own
 * nice value, and setpriority takes its id), so that when it and the main
 * thread want the same core the main thread runs first. Elsewhere, or where it
 * is refused, the thread keeps its priority: answers whether it was lowered.
 */
export function lowerThisThreadPriority(nice: number): boolean {
  const tid = thisThreadId()
  if (tid === null) return false
  try {
    setPriority(tid, Math.max(nice, getPriority(tid)))
    return true
  } catch {
    return false
  }
}
