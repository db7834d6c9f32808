// A hook call's time budget (CONTRACT 9: a CPU-time interrupt). What counts is
// the CPU time of the plugin's thread and the time the engine waits on the
// plugin's own promises (one that never settles must end too). What does not
// count: the time it waits for the host's answers (the host bounds its own
// calls), and the time the thread waits for a core while others run. Plugins run
// at a lower priority than the service (worker.ts), so on a busy machine a
// plugin's clock time can be many times its CPU time; a wall-clock limit there
// ends plugins that did nothing wrong.
//
// The thread's CPU time is a file read, too slow for the engine's interrupt
// handler, which runs every few thousand instructions. So the budget keeps a
// clock deadline that cannot pass before the budget is spent (a thread's CPU
// time never runs ahead of the clock), reads the CPU time only when the clock
// passes it, and moves it out by what is left. A call's start takes a reading
// no older than REUSE_READING_MS instead of a new one: an event batch starts
// thousands of calls a second, and a read per call (~25 µs) cost a labelling
// plugin a fifth of its speed (docs/performance.md, Plugins).

/** Less than this left is nothing left: the CPU clock is read in whole calls. */
const MIN_LEFT_MS = 1
/**
 * A CPU reading this recent (by the clock) stands for a call's start. The call
 * is then charged the CPU time since the reading: at most this much too much.
 */
export const REUSE_READING_MS = 10

export class CallBudget {
  private deadline = Infinity
  private cpuAtStart = 0
  private waitedOnPluginMs = 0
  /** The last CPU reading, and the clock when it was taken. */
  private reading: number | null = null
  private readAt = -Infinity

  /** `cpuMs`: the thread's CPU time so far; null where the system keeps none (the clock decides). */
  constructor(
    private readonly limitMs: number,
    private readonly cpuMs: () => number | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** A call begins: the whole budget is left. */
  start(): void {
    const now = this.now()
    if (now - this.readAt > REUSE_READING_MS) this.read(now)
    this.cpuAtStart = this.reading ?? 0
    // The CPU time since the reading cannot outrun the clock since then.
    this.deadline = (this.reading === null ? now : this.readAt) + this.limitMs
    this.waitedOnPluginMs = 0
  }

  /** No call runs: nothing is spent. */
  stop(): void {
    this.deadline = Infinity
  }

  /** Clock time before the budget can have been spent; at or below 0, ask `spent()`. */
  get msLeft(): number {
    return this.deadline - this.now()
  }

  /** The engine waited `ms` for the host: not the plugin's time. */
  waitedOnHost(ms: number): void {
    this.deadline += ms
  }

  /** The engine waited `ms` on the plugin's own promises: the plugin's time. */
  waitedOnPlugin(ms: number): void {
    this.waitedOnPluginMs += ms
  }

  /** Whether the call has used its budget; cheap until the clock passes the deadline. */
  spent(): boolean {
    const now = this.now()
    if (now <= this.deadline) return false
    const cpu = this.read(now)
    if (cpu === null) return true
    const left = this.limitMs - (cpu - this.cpuAtStart) - this.waitedOnPluginMs
    if (left < MIN_LEFT_MS) return true
    this.deadline = now + left
    return false
  }

  private read(now: number): number | null {
    this.reading = this.cpuMs()
    this.readAt = now
    return this.reading
  }
}
