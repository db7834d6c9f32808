// `coffer mcp`: MCP over stdio (SPEC 4.7: no token), spawned from source with the
// SDK's own client on a fresh database of the engine under test; stdout must carry
// protocol messages only (logs go to stderr).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import {
  createSchema,
  dropSchema,
  dsnWithSchema,
  POSTGRES_DSN,
  startTestApp,
} from './helpers/app.js'
import { TOOLS } from '../src/mcp/tools.js'
import { cofferArgs } from './helpers/program.js'

// Raw JSON-RPC answers are read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

// Run from the sandbox, never the checkout: a coffer.toml left there by a user
// must not change what the test sees.
const DEADLINE_MS = 30_000

interface Box {
  dir: string
  schema: string | null
  env: Record<string, string>
}

/** A temp directory and a fresh database (SQLite file, or PostgreSQL schema). */
async function sandbox(t: TestContext): Promise<Box> {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-mcp-'))
  const schema = POSTGRES_DSN ? await createSchema() : null
  t.after(async () => {
    if (schema) await dropSchema(schema)
    rmSync(dir, { recursive: true, force: true })
  })
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    SERVICE_DATA_DIR: join(dir, 'data'),
    SERVICE_DATABASE_PATH: join(dir, 'coffer.db'),
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_SYNC_INTERVAL: '0',
    ...(schema
      ? { SERVICE_DATABASE_DRIVER: 'postgres', SERVICE_DATABASE_DSN: dsnWithSchema(schema) }
      : {}),
  }
  return { dir, schema, env }
}

/** `coffer mcp` spawned raw (no SDK client): what it writes, and how it ended. */
function spawnMcp(t: TestContext, box: Box, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, cofferArgs(['mcp']), {
    cwd: box.dir,
    env: { ...box.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  t.after(() => {
    if (child.exitCode === null) child.kill()
  })
  const out = { stdout: '', stderr: '' }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out.stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out.stderr += chunk))
  return {
    child,
    out,
    /** Closes stdin and waits for the exit code. */
    end(): Promise<number | null> {
      child.stdin.end()
      return new Promise((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode)
        else child.once('exit', (c) => resolve(c))
      })
    },
  }
}

function textOf(result: CallToolResult): unknown {
  return JSON.parse((result.content[0] as { text: string }).text)
}

test('the SDK client drives coffer mcp over stdio; results equal REST afterwards', async (t) => {
  const box = await sandbox(t)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: cofferArgs(['mcp']),
    cwd: box.dir,
    env: box.env,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const protocolErrors: Error[] = []
  const client = new Client({ name: 'coffer-test', version: '1' })
  client.onerror = (error) => protocolErrors.push(error)
  await client.connect(transport)
  let closed = false
  t.after(async () => {
    if (!closed) await client.close()
  })

  const { tools } = await client.listTools()
  // The exact names are pinned in mcp-http.test.ts; stdio serves the same catalogue,
  // but for the settings and plugin tools, which belong to a running coffer serve
  // (admin, HTTP).
  const serveOnly = (name: string) =>
    ['list_settings', 'set_setting', 'reset_setting'].includes(name) || /plugin/.test(name)
  assert.deepEqual(
    tools.map((tool) => tool.name),
    TOOLS.map((tool) => tool.name).filter((name) => !serveOnly(name)),
  )
  for (const tool of tools) assert.equal(tool.inputSchema.type, 'object', tool.name)

  const account = (await client.callTool({
    name: 'create_account',
    arguments: { name: 'Cash', currency: 'EUR' },
  })) as CallToolResult
  assert.notEqual(account.isError, true, JSON.stringify(account))
  const accountId = (account.structuredContent as { id: string }).id
  const created = (await client.callTool({
    name: 'create_transaction',
    arguments: { account_id: accountId, amount: '-3.50', date: '2024-02-01' },
  })) as CallToolResult
  assert.notEqual(created.isError, true, JSON.stringify(created))
  const tx = created.structuredContent as { id: string; amount: string }
  assert.equal(tx.amount, '-3.50')
  // An own "__proto__" key, as JSON.parse makes one: assigned into a plain object it
  // would set the prototype and vanish. Refused as the REST body parser refuses it.
  const proto = (await client.callTool({
    name: 'set_transaction_extensions',
    arguments: { id: tx.id, extensions: JSON.parse('{"__proto__": {"p": true}, "ok": 1}') },
  })) as CallToolResult
  assert.equal(proto.isError, true, JSON.stringify(proto))
  assert.equal((textOf(proto) as Json).status, 400)
  assert.match((textOf(proto) as Json).detail, /forbidden prototype property/)
  const history = (await client.callTool({
    name: 'get_transaction_history',
    arguments: { id: tx.id },
  })) as CallToolResult
  const events = (await client.callTool({
    name: 'list_events',
    arguments: { entity_id: tx.id },
  })) as CallToolResult

  const invalid = (await client.callTool({
    name: 'create_transaction',
    arguments: { account_id: accountId, amount: 3.5, date: '2024-02-01' },
  })) as CallToolResult
  assert.equal(invalid.isError, true)
  assert.equal((textOf(invalid) as { status: number }).status, 400)

  await client.close()
  closed = true
  assert.deepEqual(protocolErrors, [], 'stdout carried something that is not JSON-RPC')
  assert.match(stderr, /serving MCP on stdio/, 'logs go to stderr')

  // The same database served over REST answers the same bodies.
  const app = await startTestApp(t, { reuse: { dir: box.dir, schema: box.schema } })
  const restTx = await app.request('GET', `/api/v1/transactions/${tx.id}`)
  assert.deepEqual(textOf(created), restTx.body)
  assert.deepEqual(
    textOf(account),
    (await app.request('GET', `/api/v1/accounts/${accountId}`)).body,
  )
  assert.deepEqual(
    textOf(history),
    (await app.request('GET', `/api/v1/transactions/${tx.id}/history`)).body,
  )
  assert.deepEqual(
    textOf(events),
    (await app.request('GET', `/api/v1/events?entity_id=${encodeURIComponent(tx.id)}`)).body,
  )
  assert.ok(
    (textOf(events) as { events: Array<{ type: string }> }).events.some(
      (e) => e.type === 'transaction.created',
    ),
  )
})

test('every stdout line of coffer mcp parses as a JSON-RPC message', async (t) => {
  const box = await sandbox(t)
  const mcp = spawnMcp(t, box, { SERVICE_LOG_LEVEL: 'debug' })
  const { child, out } = mcp
  const send = (message: object) => child.stdin.write(JSON.stringify(message) + '\n')
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  })
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
  send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'list_accounts', arguments: {} },
  })
  send({
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'get_account', arguments: { id: 'nope' } },
  })

  // PostgreSQL text cannot hold U+0000: refused as for REST, on either engine.
  send({
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name: 'get_transaction', arguments: { id: 'a\u0000b' } },
  })

  const deadline = Date.now() + DEADLINE_MS
  while (Date.now() < deadline && out.stdout.split('\n').filter(Boolean).length < 5) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(await mcp.end(), 0, out.stderr)
  const lines = out.stdout.split('\n').filter(Boolean)
  assert.equal(lines.length, 5, out.stdout)
  const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number })
  for (const message of messages) assert.equal(message.jsonrpc, '2.0')
  // Calls are answered concurrently, so in any order.
  assert.deepEqual(messages.map((m) => m.id).sort(), [1, 2, 3, 4, 5])
  const notFound = messages.find((m) => m.id === 4) as unknown as {
    result: { isError: boolean; structuredContent: { status: number } }
  }
  assert.equal(notFound.result.isError, true)
  assert.equal(notFound.result.structuredContent.status, 404)
  const nul = messages.find((m) => m.id === 5) as unknown as {
    result: { isError: boolean; structuredContent: { status: number; errors: unknown } }
  }
  assert.equal(nul.result.isError, true)
  assert.equal(nul.result.structuredContent.status, 400)
  assert.deepEqual(nul.result.structuredContent.errors, [
    { field: 'id', message: 'must not contain the NUL character (U+0000)' },
  ])
  assert.ok(out.stderr.length > 0, 'the logs went somewhere other than stderr')
})

test('over stdio, a number a double cannot hold exactly is refused as over HTTP, never rounded', async (t) => {
  const box = await sandbox(t)
  const mcp = spawnMcp(t, box)
  const { child, out } = mcp
  const answers = new Map<number, (message: Json) => void>()
  const parseErrors: Json[] = []
  let read = 0
  // After spawnMcp's own listener, so out.stdout already holds the chunk.
  child.stdout.on('data', () => {
    let newline = out.stdout.indexOf('\n', read)
    while (newline !== -1) {
      const message = JSON.parse(out.stdout.slice(read, newline))
      read = newline + 1
      if (message.id === null) parseErrors.push(message)
      else answers.get(message.id as number)?.(message)
      newline = out.stdout.indexOf('\n', read)
    }
  })
  let nextId = 1
  /** Sends one line as written (numbers verbatim) and waits for its answer. */
  const rpc = (method: string, params: string): Promise<Json> => {
    const id = nextId++
    const answered = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer to ${method}: ${out.stderr}`)),
        DEADLINE_MS,
      )
      answers.set(id, (message) => {
        clearTimeout(timer)
        resolve(message)
      })
    })
    child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}\n`)
    return answered
  }
  const call = (name: string, args: string) =>
    rpc('tools/call', `{"name":"${name}","arguments":${args}}`)

  await rpc(
    'initialize',
    JSON.stringify({
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    }),
  )
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  const account = await call('create_account', '{"name":"Cash","currency":"EUR"}')
  const accountId = account.result.structuredContent.id as string
  const created = await call(
    'create_transaction',
    `{"account_id":"${accountId}","amount":"-3.50","date":"2024-02-01"}`,
  )
  const txId = created.result.structuredContent.id as string

  const refused = (literal: string) => ({
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: `the number ${literal} cannot be kept exactly; send it as a string`,
  })
  for (const literal of ['12345678901234567890', '0.1000000000000000000001', '1e400']) {
    const body = `{"extensions":{"acme.n":${literal}}}`
    const answer = await call('set_transaction_extensions', `{"id":"${txId}",${body.slice(1)}`)
    assert.equal(answer.result.isError, true, JSON.stringify(answer))
    assert.deepEqual(answer.result.structuredContent, refused(literal))
    assert.deepEqual(JSON.parse(answer.result.content[0].text), refused(literal))
  }
  // Any other request carrying one: a JSON-RPC error with the same detail.
  const listed = await rpc('tools/list', '{"_meta":{"n":12345678901234567890}}')
  assert.deepEqual(listed.error, {
    code: -32602,
    message: refused('12345678901234567890').detail,
    data: refused('12345678901234567890'),
  })
  // What a double holds exactly still passes, and the refused values were never written.
  const kept = await call(
    'set_transaction_extensions',
    `{"id":"${txId}","extensions":{"acme.n":12.5}}`,
  )
  assert.notEqual(kept.result.isError, true, JSON.stringify(kept))
  const tx = await call('get_transaction', `{"id":"${txId}"}`)
  assert.deepEqual(tx.result.structuredContent.extensions, { 'acme.n': 12.5 })
  const events = await call('list_events', `{"entity_id":"${txId}","type":"extension.set"}`)
  assert.equal(events.result.structuredContent.events.length, 1)

  // A line that is not JSON gets a JSON-RPC parse error (id null), and the
  // session goes on; a lone surrogate is refused as over HTTP, naming its path.
  child.stdin.write('{"jsonrpc":"2.0","id":99,"method":\n')
  const surrogate = await call(
    'set_transaction_extensions',
    `{"id":"${txId}","extensions":{"acme.s":"\\ud800"}}`,
  )
  assert.equal(surrogate.result.isError, true, JSON.stringify(surrogate))
  assert.equal(surrogate.result.structuredContent.status, 400)
  assert.match(
    surrogate.result.structuredContent.detail,
    /params\.arguments\.extensions\.acme\.s holds a lone UTF-16 surrogate \(U\+D800\)/,
  )
  assert.equal(parseErrors.length, 1, JSON.stringify(parseErrors))
  assert.equal(parseErrors[0]!.error.code, -32700)
  assert.match(parseErrors[0]!.error.message, /^Parse error: not JSON/)

  // JSON that is no JSON-RPC message is answered as an invalid request (with its
  // id when one can be read), never left unanswered; a notification is not answered.
  const invalid = (id: number, line: string) => {
    const answered = new Promise<Json>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${line}`)), DEADLINE_MS)
      answers.set(id, (message) => {
        clearTimeout(timer)
        resolve(message)
      })
    })
    child.stdin.write(`${line}\n`)
    return answered
  }
  const noMethod = await invalid(nextId, `{"jsonrpc":"2.0","id":${nextId++}}`)
  assert.equal(noMethod.error.code, -32600)
  assert.match(noMethod.error.message, /no "method", "result" or "error"/)
  const oldVersion = await invalid(nextId, `{"jsonrpc":"1.0","id":${nextId++},"method":"ping"}`)
  assert.equal(oldVersion.error.code, -32600)
  assert.match(oldVersion.error.message, /"jsonrpc" must be "2.0"/)
  const badParams = await invalid(
    nextId,
    `{"jsonrpc":"2.0","id":${nextId++},"method":"ping","params":7}`,
  )
  assert.equal(badParams.error.code, -32600)
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/x","params":"no"}\n')
  child.stdin.write('{"hello":"world"}\n')
  child.stdin.write(`[{"jsonrpc":"2.0","id":${nextId++},"method":"ping"}]\n`)
  const pong = await rpc('ping', '{}')
  assert.deepEqual(pong.result, {})
  assert.deepEqual(
    parseErrors.slice(1).map((m: Json) => [m.error.code, m.error.message.split(':')[1]?.trim()]),
    [
      [-32600, 'not a JSON-RPC 2.0 message'],
      [-32600, 'batches are not supported'],
    ],
  )

  assert.equal(await mcp.end(), 0, out.stderr)

  // REST refuses the same body with the same problem.
  const app = await startTestApp(t, { reuse: { dir: box.dir, schema: box.schema } })
  const rest = await app.request('PUT', `/api/v1/transactions/${txId}/extensions`, {
    rawBody: '{"extensions":{"acme.n":12345678901234567890}}',
  })
  assert.equal(rest.status, 400)
  assert.deepEqual(rest.body, refused('12345678901234567890'))
})

test('requests piped in are all answered before coffer mcp exits; a line too long or not UTF-8 is refused and the session goes on', async (t) => {
  const box = await sandbox(t)
  const mcp = spawnMcp(t, box)
  const { child, out } = mcp
  const line = (message: object) => JSON.stringify({ jsonrpc: '2.0', ...message })
  const initialize = line({
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    },
  })
  child.stdin.write(`${initialize}\n${line({ method: 'notifications/initialized' })}\n`)
  // A line longer than the transport's read buffer, then one that is not UTF-8.
  child.stdin.write(
    `{"jsonrpc":"2.0","id":"big","method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"}}\n`,
  )
  child.stdin.write(
    Buffer.concat([
      Buffer.from(
        line({
          id: 'latin1',
          method: 'tools/call',
          params: { name: 'create_account', arguments: { name: 'bad', currency: 'USD' } },
        }).replace('bad', 'b'),
      ),
      Buffer.from([0xff, 0xfe, 0x0a]),
    ]),
  )
  const create = (id: number) =>
    line({
      id,
      method: 'tools/call',
      params: { name: 'create_account', arguments: { name: `piped ${id}`, currency: 'USD' } },
    })
  // Fifty writes and a last line without its newline, then the input ends at once.
  child.stdin.write(Array.from({ length: 50 }, (_, i) => create(i + 1)).join('\n') + '\n')
  child.stdin.write(line({ id: 'last', method: 'ping' }))
  assert.equal(await mcp.end(), 0, out.stderr)

  const answers = out.stdout
    .split('\n')
    .filter(Boolean)
    .map((text) => JSON.parse(text))
  const byId = new Map(answers.map((answer) => [answer.id, answer]))
  for (let id = 1; id <= 50; id++) {
    assert.equal(byId.get(id)?.result?.structuredContent?.name, `piped ${id}`, `answer ${id}`)
  }
  assert.deepEqual(byId.get('last')?.result, {})
  const refused = answers.filter((answer) => answer.id === null).map((answer) => answer.error)
  assert.deepEqual(refused, [
    { code: -32600, message: 'Invalid Request: a message is at most 10 MiB' },
    { code: -32700, message: 'Parse error: the message is not valid UTF-8' },
  ])
  assert.equal(answers.length, 54, 'initialize, 50 creates, the ping, two refusals')

  // Every write the client was told of is there, and nothing else.
  const app = await startTestApp(t, { reuse: { dir: box.dir, schema: box.schema } })
  const listed = await app.request('GET', '/api/v1/accounts?limit=100')
  assert.equal(listed.body.total, 50)
})
