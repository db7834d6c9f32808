// A plugin marketplace on 127.0.0.1 (CONTRACT 9): an index at /index.json and
// the files it lists, from memory. Tests put plugins in it, then break them
// (wrong bytes, a `../` path, a download that breaks off or never ends) to see
// the install refuse them.
import { createHash } from 'node:crypto'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface MarketFile {
  path: string
  content: string
  /** Served instead of `content` (the index keeps content's size and hash). */
  served?: string
  /**
   * How the download misbehaves: `breaks-off` sends the headers and half the
   * body, then closes the socket; `dribbles` sends a byte every 100 ms and
   * never the last one.
   */
  fault?: Fault
}

export type Fault = 'breaks-off' | 'dribbles'

export interface MarketPlugin {
  name: string
  version: string
  capabilities?: string[]
  files: MarketFile[]
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

function misbehave(res: ServerResponse, body: string, fault: Fault): void {
  const bytes = Buffer.from(body)
  res.writeHead(200, { 'content-length': String(bytes.byteLength) })
  if (fault === 'breaks-off') {
    res.write(bytes.subarray(0, bytes.byteLength >> 1), () => res.socket?.destroy())
    return
  }
  let sent = 0
  // One byte every 100 ms; after the last one, nothing more (the end never comes).
  const drip = setInterval(() => {
    if (sent < bytes.byteLength - 1) res.write(bytes.subarray(sent, ++sent))
  }, 100)
  res.on('close', () => clearInterval(drip))
}

export async function startMarket(t: TestContext) {
  const plugins = new Map<string, MarketPlugin>()
  const files = new Map<string, { body: string; fault?: Fault }>()
  const market = {
    indexUrl: '',
    /** How the index download misbehaves, if it does. */
    indexFault: undefined as Fault | undefined,
    /** Lists `plugin` in the index (replacing an entry of the same name). */
    publish(plugin: MarketPlugin) {
      plugins.set(plugin.name, plugin)
      for (const f of plugin.files)
        files.set(`/files/${plugin.name}/${plugin.version}/${f.path}`, {
          body: f.served ?? f.content,
          ...(f.fault ? { fault: f.fault } : {}),
        })
    },
  }
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
      if (market.indexFault) return misbehave(res, JSON.stringify(index), market.indexFault)
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(index))
      return
    }
    const file = files.get(decodeURIComponent(url))
    if (file === undefined) res.writeHead(404).end()
    else if (file.fault) misbehave(res, file.body, file.fault)
    else res.writeHead(200).end(file.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  market.indexUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.json`
  return market
}
