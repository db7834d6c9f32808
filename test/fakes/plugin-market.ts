// A plugin marketplace on 127.0.0.1 (CONTRACT 9): an index at /index.json and
// the files it lists, from memory. Tests put plugins in it, then break them
// (wrong bytes, a `../` path) to see the install refuse them.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface MarketFile {
  path: string
  content: string
  /** Served instead of `content` (the index keeps content's size and hash). */
  served?: string
}

export interface MarketPlugin {
  name: string
  version: string
  capabilities?: string[]
  files: MarketFile[]
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export async function startMarket(t: TestContext) {
  const plugins = new Map<string, MarketPlugin>()
  const files = new Map<string, string>()
  const server = createServer((req, res) => {
    const url = req.url ?? '/'
    if (url === '/index.json') {
      const index = {
        schema_version: 1,
        plugins: [...plugins.values()].map((p) => ({
          name: p.name,
          version: p.version,
          description: `${p.name} from the market`,
          author: 'market',
          capabilities: p.capabilities ?? [],
          files: p.files.map((f) => ({
            path: f.path,
            // Relative to the index, as an index may say.
            url: `files/${p.name}/${p.version}/${encodeURIComponent(f.path)}`,
            sha256: sha256(f.content),
            size: Buffer.byteLength(f.content),
          })),
        })),
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(index))
      return
    }
    const body = files.get(decodeURIComponent(url))
    if (body === undefined) res.writeHead(404).end()
    else res.writeHead(200).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    indexUrl: `${base}/index.json`,
    /** Lists `plugin` in the index (replacing an entry of the same name). */
    publish(plugin: MarketPlugin) {
      plugins.set(plugin.name, plugin)
      for (const f of plugin.files)
        files.set(`/files/${plugin.name}/${plugin.version}/${f.path}`, f.served ?? f.content)
    },
  }
}
