// `npm run bench`: every benchmark, each printed beside a baseline measured in
// the same run. Pass names to run a subset: npm run bench -- ledger-write
import { benchCsvImport } from './csv-import.js'
import { benchDashboard } from './dashboard.js'
import { benchEthereumSync } from './ethereum-sync.js'
import { benchEventLatency } from './event-latency.js'
import { benchExport } from './export.js'
import { benchLedgerWrite } from './ledger-write.js'
import { benchList } from './list.js'
import { benchPlugins } from './plugins.js'
import { benchRulesRun } from './rules-run.js'
import { benchSearch } from './search.js'
import { benchSearchLoad } from './search-load.js'
import { benchSummary } from './summary.js'
import { benchWebhooks } from './webhooks.js'

const BENCHMARKS: Record<string, () => Promise<void>> = {
  'ledger-write': benchLedgerWrite,
  'csv-import': benchCsvImport,
  'ethereum-sync': benchEthereumSync,
  webhooks: benchWebhooks,
  'event-latency': benchEventLatency,
  'rules-run': benchRulesRun,
  search: benchSearch,
  'search-load': benchSearchLoad,
  summary: benchSummary,
  list: benchList,
  dashboard: benchDashboard,
  export: benchExport,
  plugins: benchPlugins,
}

const wanted = process.argv.slice(2)
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue
  await run()
}
