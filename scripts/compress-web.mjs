// Writes a .br and a .gz beside every text asset of the built dashboard, so
// that `coffer serve` sends them precompressed (src/http/dashboard.ts) and
// spends no CPU compressing per request.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: node scripts/compress-web.mjs <dir>')
  process.exit(2)
}

const TEXT = /\.(js|css|html|svg|json|txt|map)$/

function* files(root) {
  for (const name of readdirSync(root)) {
    const path = join(root, name)
    if (statSync(path).isDirectory()) yield* files(path)
    else if (TEXT.test(name)) yield path
  }
}

let count = 0
for (const path of files(dir)) {
  const body = readFileSync(path)
  if (body.length < 512) continue
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
  )
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }))
  count++
}
console.log(`compressed ${count} dashboard files (br, gz)`)
