// A clock that moves only when a test moves it. Timers started on it (backoff,
// grace periods) fire when `advance` passes their time, so a test checks waits
// exactly instead of measuring the wall clock.
import assert from 'node:assert/strict'
import type { Clock } from '../../src/clock.js'
import type { Receiver } from '../fakes/receiver.js'

interface Timer {
  at: number
  callback: () => void
}

export class ManualClock implements Clock {
  private ms: number
  private readonly timers = new Set<Timer>()
  private readonly waiters = new Set<() => void>()

  constructor(start = Date.UTC(2024, 0, 1)) {
    this.ms = start
  }

  now(): Date {
    return new Date(this.ms)
  }

  setTimer(callback: () => void, ms: number): () => void {
    const timer = { at: this.ms + ms, callback }
    this.timers.add(timer)
    for (const wake of this.waiters) wake()
    return () => this.timers.delete(timer)
  }

  /** The delays, from now, of the timers waiting to fire. */
  pending(): number[] {
    return [...this.timers].map((t) => t.at - this.ms).sort((a, b) => a - b)
  }

  /** Resolves once at least one timer waits. */
  async untilTimer(): Promise<void> {
    while (this.timers.size === 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake)
          resolve()
        }
        this.waiters.add(wake)
      })
    }
  }

  /** Moves time forward, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const end = this.ms + ms
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.timers.delete(due)
      this.ms = due.at
      due.callback()
    }
    this.ms = end
  }
}

/**
 * Steps a sender that retries on `clock` through `failures` failed attempts at
 * `receiver`: after each, reads the wait its retry timer was set for, checks
 * that nothing is sent a millisecond before it, then lets it fire. Answers the
 * waits, in order.
 */
export async function stepThroughBackoff(
  clock: ManualClock,
  receiver: Receiver,
  failures: number,
): Promise<number[]> {
  const waits: number[] = []
  for (let attempt = 1; attempt <= failures; attempt++) {
    await receiver.waitFor(`attempt ${attempt}`, (d) => d.length === attempt)
    await clock.untilTimer()
    const [wait] = clock.pending()
    waits.push(wait!)
    clock.advance(wait! - 1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(receiver.deliveries.length, attempt, `no retry before ${wait} ms`)
    clock.advance(1)
  }
  return waits
}
