// A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL), to do to the
// service what a database restart or a network fault does: cut every open
// connection with a reset, or hold the server's answers back so that a query is
// in flight when the cut comes. New connections keep being accepted.
import { createServer, connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'

export interface TcpProxy {
  port: number
  /** Connections made through the proxy so far. */
  connections(): number
  /** Stops passing the server's bytes on to clients (queries hang) until the next cut. */
  hold(): void
  /** Resets every open connection (ECONNRESET on both sides); later connections work. */
  cut(): void
  close(): Promise<void>
}

export async function startTcpProxy(
  t: TestContext,
  target: { host: string; port: number },
): Promise<TcpProxy> {
  const open = new Set<Socket>()
  let made = 0
  let holding = false
  const server = createServer((client) => {
    made++
    const upstream = connect(target.port, target.host)
    open.add(client).add(upstream)
    client.on('data', (chunk) => upstream.write(chunk))
    upstream.on('data', (chunk) => {
      if (!holding) client.write(chunk)
    })
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy())
      socket.on('close', () => {
        open.delete(socket)
        other.destroy()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    connections: () => made,
    hold: () => void (holding = true),
    cut() {
      holding = false
      for (const socket of open) socket.resetAndDestroy()
      open.clear()
    },
    close: () =>
      new Promise<void>((resolve) => {
        proxy.cut()
        server.close(() => resolve())
      }),
  }
  t.after(() => proxy.close())
  return proxy
}
