// `npm run bench`: runs bench/run.ts compiled (compiled-checkout.mjs), as the
// service runs, so that worker threads and spawned programs start as they do
// in production rather than through tsx's module hooks. Arguments pass through:
//   npm run bench -- csv-import plugins
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { BUILD_DIR, compileCheckout } from './compiled-checkout.mjs'

const root = new URL('..', import.meta.url).pathname
await compileCheckout()
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', join(BUILD_DIR, 'bench', 'run.js'), ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
)
process.exit(result.status ?? 1)
