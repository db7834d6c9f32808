// A client-side request rate limit for the explorer (hosted explorers allow a few
// calls a second per key). Requests are spaced evenly: each caller is given the
// next free slot, so bursts never exceed the rate, whatever the concurrency.

export class RateLimiter {
  private readonly intervalMs: number
  private nextSlot = 0

  constructor(requestsPerSecond: number) {
    this.intervalMs = 1000 / Math.max(1, requestsPerSecond)
  }

  /** Resolves when the caller may send its request. */
  async take(): Promise<void> {
    const now = performance.now()
    const slot = Math.max(now, this.nextSlot)
    this.nextSlot = slot + this.intervalMs
    if (slot > now) await sleep(slot - now)
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
