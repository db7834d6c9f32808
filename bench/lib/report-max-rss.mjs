// Loaded with `node --import` into a benchmarked `coffer` process: prints the
// process's peak resident memory on exit, for the benchmark to read from stderr.
import { writeSync } from 'node:fs'

process.on('exit', () => {
  writeSync(2, `COFFER_BENCH_MAX_RSS_KIB=${process.resourceUsage().maxRSS}\n`)
})
