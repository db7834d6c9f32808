// A copy of the checkout with its TypeScript compiled to JavaScript, for the
// test runner (run-tests.mjs) and the benchmarks (run-bench.mjs).
import { lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, unlinkSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { build } from 'esbuild'

const root = new URL('..', import.meta.url).pathname

export const BUILD_DIR = '.test-build'
/** The TypeScript trees the tests and benchmarks import, each compiled with its own tsconfig. */
const COMPILED_TREES = [
  { dir: 'src', tsconfig: 'tsconfig.json' },
  { dir: 'test', tsconfig: 'tsconfig.json' },
  { dir: 'bench', tsconfig: 'tsconfig.json' },
  { dir: 'web/src', tsconfig: 'web/tsconfig.json' },
]

/**
 * Compiles src/, test/, bench/ and web/src/ into .test-build/ (esbuild, file by file,
 * inline source maps) and links every other file of the checkout beside them,
 * so that the copy reads as the checkout does (package.json, docs/, dist/web,
 * fixtures). Node then runs the tests or benchmarks, and the programs and workers
 * they start, as the service runs: without module hooks. tsx's hooks cost each
 * process about 1.3 s of CPU on Node 20, a run of the suite starts some 300 of
 * them, and a benchmark's worker threads would pay it where the service does
 * not. Compiling takes about a second.
 */
export async function compileCheckout() {
  const out = join(root, BUILD_DIR)
  const sources = new Map(COMPILED_TREES.map((tree) => [tree, []]))
  const link = (path) => {
    const target = join(out, path)
    if (lstatSync(target, { throwIfNoEntry: false })) return
    mkdirSync(dirname(target), { recursive: true })
    symlinkSync(relative(dirname(target), join(root, path)), target)
  }
  const walk = (dir) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name)
      if (path === BUILD_DIR || path === '.git') continue
      const tree = COMPILED_TREES.find((t) => path === t.dir || path.startsWith(`${t.dir}/`))
      const holdsTree = COMPILED_TREES.some((t) => t.dir.startsWith(`${path}/`))
      const isDir = statSync(join(root, path)).isDirectory()
      if (isDir && (tree || holdsTree)) walk(path)
      else if (tree && /\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.get(tree).push(path)
      else link(path)
    }
  }
  // A compiled tree, or a folder holding one, must be a real folder here: were
  // it a link (a copy laid out before the tree was compiled), esbuild would
  // write into the checkout through it.
  for (const tree of COMPILED_TREES) {
    const parts = tree.dir.split('/')
    for (let i = 1; i <= parts.length; i++) {
      const path = join(out, ...parts.slice(0, i))
      if (isLink(path)) unlinkSync(path)
    }
  }
  walk('')
  for (const [tree, paths] of sources) {
    await build({
      entryPoints: paths.map((path) => join(root, path)),
      outdir: out,
      outbase: root,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      sourcemap: 'inline',
      tsconfig: join(root, tree.tsconfig),
      logLevel: 'warning',
    })
  }
}

function isLink(path) {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false
}
