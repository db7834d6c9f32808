// How far V8 lets a heap grow past what its last full collection kept. By
// default it may grow to several times the live data before collecting again,
// and an import allocates fast: the rows, their snapshots and events of each
// unit outlive a scavenge and land in the old generation as garbage. A
// 100k-row `coffer sync` then peaked at 310-340 MiB (the main thread's heap
// about 120 MiB, a fifth of it live), over the 300 MiB the CSV import targets.
// With the heap let grow by 30% past the live data: 280-290 MiB, no slower
// (docs/performance.md, "Memory of an import").
import { setFlagsFromString } from 'node:v8'

/** Percent a heap may grow past its live data before V8 collects it again. */
export const HEAP_GROWING_PERCENT = 30

/**
 * Sets the growth for every heap of the process: V8's flags are the process's,
 * and the flag is read at each collection, so the worker threads started later
 * follow it too. Called first thing by the program's entry.
 */
export function keepHeapsSmall(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}
