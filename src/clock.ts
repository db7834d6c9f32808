// Time as the service sees it: a clock in the service context (tests pass a
// fixed one, DESIGN "Contracts between parts") and the one stored form of an
// instant, fixed-width UTC text (YYYY-MM-DDTHH:MM:SSZ) whose text order is time order.

export interface Clock {
  now(): Date
  /**
   * Calls `callback` once `ms` of this clock's time have passed; answers a
   * cancel. Absent: real time. A test clock that moves by hand makes waits
   * (backoff, grace periods) exact instead of racing the wall clock.
   */
  setTimer?(callback: () => void, ms: number): () => void
}

export const systemClock: Clock = { now: () => new Date() }

/** A timer on `clock` (real time unless the clock brings its own). */
export function startTimer(clock: Clock, ms: number, callback: () => void): () => void {
  if (clock.setTimer) return clock.setTimer(callback, ms)
  const timer = setTimeout(callback, ms)
  return () => clearTimeout(timer)
}

/** Fixed-width UTC with whole seconds; milliseconds are truncated, not rounded. */
export function formatInstant(date: Date): string {
  if (!Number.isFinite(date.getTime())) throw new RangeError('invalid date')
  // Fixed width needs a four-digit year: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
  const year = date.getUTCFullYear()
  if (year < 1 || year > 9999) throw new RangeError('date outside years 0001-9999')
  // toISOString is YYYY-MM-DDTHH:MM:SS.sssZ for these years; cutting the
  // milliseconds floors toward the past, also before 1970.
  return `${date.toISOString().slice(0, 19)}Z`
}

export function isoNow(clock: Clock): string {
  return formatInstant(clock.now())
}

/** Lets the event loop turn (timers, I/O, other requests) before going on with long work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * A yield for work that runs back to back in microtasks (units of work taking
 * turns on one connection's promise queue never give the loop a turn between
 * them): answers a function that yields only when the loop has had no turn for
 * `ms`, so that work the loop already interleaves pays nothing.
 */
export function yieldWhenLoopStarved(ms: number): () => Promise<void> {
  let lastTurn = performance.now()
  let watching = false
  const watch = () => {
    if (watching) return
    watching = true
    setImmediate(() => {
      watching = false
      lastTurn = performance.now()
    })
  }
  return async () => {
    if (performance.now() - lastTurn >= ms) {
      await yieldToEventLoop()
      lastTurn = performance.now()
    }
    watch()
  }
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
}

/** Days in a month of the proleptic Gregorian calendar. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/** Whether year, month and day name a real day (1900-02-29 does not, 2000-02-29 does). */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}
