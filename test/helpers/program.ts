// How the tests run the `coffer` program: from the same tree as the test
// itself. `npm test` runs the suite compiled to JavaScript in .test-build/
// (scripts/run-tests.mjs), which spares every test process and every spawned
// program the module hooks of tsx, about 1.3 s of CPU each on Node 20; a test
// file run from source (`node --import tsx --test test/x.test.ts`) spawns the
// program from source through tsx.
import { realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const COMPILED = !import.meta.url.endsWith('.ts')

/**
 * The tree this test runs from: the checkout, or its compiled copy, whose other
 * entries (package.json, docs, web, node_modules, ...) link to the checkout's.
 * The service's own install root (src/update/install.ts) is this one.
 */
export const PROGRAM_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The checkout itself: its sources, package.json and tsconfig. */
export const CHECKOUT = dirname(realpathSync(join(PROGRAM_ROOT, 'package.json')))

/** The program's file, relative to a root: `src/cli.js` compiled, `src/cli.ts` from source. */
export const PROGRAM_FILE = COMPILED ? 'src/cli.js' : 'src/cli.ts'

/** Node's arguments before a program file: source maps for stack traces, or tsx's hooks. */
const NODE_ARGS = COMPILED ? ['--enable-source-maps'] : ['--import', import.meta.resolve('tsx')]

/** What follows `node` to run `coffer <args>` from `root` (an install a test laid out) or this tree. */
export function cofferArgs(args: string[], root = PROGRAM_ROOT): string[] {
  return [...NODE_ARGS, join(root, PROGRAM_FILE), ...args]
}
