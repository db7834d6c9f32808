// `npm run bench`: every benchmark, each printed beside a baseline measured in
// the same run. Pass names to run a subset: npm run bench -- ledger-write
import { benchLedgerWrite } from './ledger-write.js'

const BENCHMARKS: Record<string, () => Promise<void>> = {
  'ledger-write': benchLedgerWrite,
}

const wanted = process.argv.slice(2)
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue
  await run()
}
