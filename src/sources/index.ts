// The explicit list of ingestion sources (DESIGN "A source"). A new source is one
// folder beside csv/ and one line here.
import { aggregatorSource } from './aggregator/index.js'
import { csvSource } from './csv/index.js'
import { ethereumSource } from './ethereum/index.js'
import type { Source } from './source.js'

export const SOURCES: readonly Source[] = [csvSource, ethereumSource, aggregatorSource]
