// Writes docs/configuration.md from the configuration key table.
import { writeFileSync } from 'node:fs'
import { renderConfigDocs } from '../src/config/docs.js'

writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigDocs())
