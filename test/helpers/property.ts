// Property-based tests (fast-check), seeded and counted. Every property of a file
// runs through `holds`, which uses one seed for the whole run and adds its runs to
// the file's total; the file prints that total and the seed when it ends:
//
//   property runs: 6000 (seed 17)
//
// COFFER_PROPERTY_SEED replays a run (a number; "random" picks a fresh seed, which
// is printed like any other). COFFER_PROPERTY_RUNS sets the runs of one property
// (default 500); a property that costs more (a database write, a file) asks for a
// share of it. A failure names the seed and fast-check's shrink path, so
//   COFFER_PROPERTY_SEED=<seed> npm test -- <file>
// fails the same way.
import { after } from 'node:test'
import fc, { type IAsyncProperty, type IProperty } from 'fast-check'
import { seedFromEnv } from './seeded.js'

const DEFAULT_SEED = 17
const DEFAULT_RUNS = 500

function readRuns(): number {
  const text = process.env.COFFER_PROPERTY_RUNS?.trim()
  if (text === undefined || text === '') return DEFAULT_RUNS
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new Error(
      `COFFER_PROPERTY_RUNS: expected a positive integer, got ${JSON.stringify(text)}`,
    )
  }
  return Number(text)
}

export const PROPERTY_SEED = seedFromEnv(DEFAULT_SEED)
export const PROPERTY_RUNS = readRuns()

let total = 0

// Registered when a test file imports this module, so on the file's root test: it
// runs once, after every test of the file.
after(() => {
  console.log(`property runs: ${total} (seed ${PROPERTY_SEED})`)
})

export interface HoldsOptions {
  /** Fraction of COFFER_PROPERTY_RUNS for a costly property (at least one run). */
  share?: number
}

function runsFor(options: HoldsOptions): number {
  return Math.max(1, Math.round(PROPERTY_RUNS * (options.share ?? 1)))
}

// fast-check's report (seed, path, counterexample) with the assertion that failed.
function fail(report: string | undefined, error: unknown): never {
  const reason = error instanceof Error ? error.message : String(error)
  throw new Error(
    `${report ?? 'property failed'}\n${reason}\nReplay: COFFER_PROPERTY_SEED=${PROPERTY_SEED} npm test -- <this file>`,
    { cause: error },
  )
}

/** Checks a synchronous property with the shared seed; throws fast-check's report on failure. */
export function holds<Ts>(property: IProperty<Ts>, options: HoldsOptions = {}): void {
  const details = fc.check(property, { seed: PROPERTY_SEED, numRuns: runsFor(options) })
  total += details.numRuns
  if (details.failed) fail(fc.defaultReportMessage(details), details.errorInstance)
}

/** The same for an asynchronous property. */
export async function holdsAsync<Ts>(
  property: IAsyncProperty<Ts>,
  options: HoldsOptions = {},
): Promise<void> {
  const details = await fc.check(property, { seed: PROPERTY_SEED, numRuns: runsFor(options) })
  total += details.numRuns
  if (details.failed) fail(await fc.asyncDefaultReportMessage(details), details.errorInstance)
}
