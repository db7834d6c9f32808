// The explicit list of ingestion sources (DESIGN "A source"). A new source is one
// folder beside csv/ and one line here. Each sync engine gets instances of its
// own: a source may keep state between syncs (a rate limiter, an access token).
import { createAggregatorSource } from './aggregator/index.js'
import { createCsvSource } from './csv/index.js'
import { createEthereumSource } from './ethereum/index.js'
import type { Source } from './source.js'

export function createSources(): Source[] {
  return [createCsvSource(), createEthereumSource(), createAggregatorSource()]
}
