// A plugin's code as one ES module for the sandbox, which has no module loader:
// esbuild bundles the entrypoint with the files it imports from its own folder
// (TypeScript transpiled on the way, never type-checked). An import of anything
// else (a package, a file outside the folder) is refused at load, naming it; a
// dynamic import() is left as written, and fails in the sandbox.
import { resolve, sep } from 'node:path'
import type { Plugin as EsbuildPlugin } from 'esbuild'

export const BUNDLE_MAX_BYTES = 5 * 1024 * 1024

export class BundleError extends Error {
  override name = 'BundleError'
}

function confinedTo(dir: string): EsbuildPlugin {
  const root = resolve(dir) + sep
  return {
    name: 'confine-to-plugin-folder',
    setup(on) {
      on.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined
        if (args.kind === 'dynamic-import') return { path: args.path, external: true }
        const inside =
          args.path.startsWith('.') && resolve(args.resolveDir, args.path).startsWith(root)
        if (inside) return undefined
        return {
          errors: [
            {
              text: `import "${args.path}": a plugin may import only files of its own folder`,
            },
          ],
        }
      })
    },
  }
}

/** Bundles `<dir>/<entrypoint>` into one ES module; BundleError says what is wrong. */
export async function bundlePlugin(dir: string, entrypoint: string): Promise<string> {
  try {
    // Loaded here: a service without plugins never needs it (it adds to every start).
    const { build } = await import('esbuild')
    const result = await build({
      entryPoints: [resolve(dir, entrypoint)],
      bundle: true,
      // Paths in the code (comments, stack traces) are the folder's own.
      absWorkingDir: resolve(dir),
      write: false,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
      // No require shim: the sandbox has no require, and plugin code should see that.
      define: { require: 'undefined' },
      plugins: [confinedTo(dir)],
    })
    const code = result.outputFiles[0]?.text ?? ''
    if (Buffer.byteLength(code) > BUNDLE_MAX_BYTES)
      throw new BundleError(`the bundled code is over ${BUNDLE_MAX_BYTES} bytes`)
    return code
  } catch (error) {
    if (error instanceof BundleError) throw error
    const errors = (
      error as {
        errors?: Array<{ text: string; location?: { file: string; line: number } | null }>
      }
    ).errors
    const first = errors?.[0]
    if (!first) throw new BundleError(`the code cannot be read: ${(error as Error).message}`)
    const where = first.location ? ` (${first.location.file}:${first.location.line})` : ''
    throw new BundleError(`${first.text}${where}`)
  }
}
