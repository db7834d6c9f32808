// Schema-driven MCP fuzz pass (issue 17; docs/security.md "Fuzzing"): for every
// tool that tools/list over /mcp offers, seeded hostile arguments built from its
// inputSchema (generate.ts), plus hostile JSON-RPC envelopes and transport
// headers. Every answer: no 5xx (neither HTTP nor a tool error's problem status),
// none slower than 5 s; a 4xx is problem+json, or — for a message the MCP
// transport itself refuses — a JSON-RPC error; a tool error carries a problem
// with type, title, status and detail, equal in text and structured content; a
// refused call (HTTP 4xx, JSON-RPC error, tool error) changes nothing.
// COFFER_FUZZ_SEED and COFFER_FUZZ_MCP_REQUESTS (or COFFER_FUZZ_REQUESTS) choose
// the seed and the count (harness.ts fuzzSettings).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { expectStatus } from '../helpers/http.js'
import { keptAndCountedTransactions } from '../helpers/ledger.js'
import { assertLogFoldsToLedger } from '../helpers/log-fold.js'
import { jsonText, mcpCase, mcpTransportCase, type McpCase, type ToolSchema } from './generate.js'
import {
  answerProblems,
  describeAnswer,
  checkRefusedChangedNothing,
  fingerprint,
  fuzzSettings,
  problemOf,
  refreshPools,
  send,
  startFuzzApp,
  syncSettled,
  Tally,
  TOKEN,
  type FuzzApp,
  type RawResponse,
} from './harness.js'

const { seed, requests } = fuzzSettings('mcp', 1200)

const JSON_RPC_HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  accept: 'application/json, text/event-stream',
}

interface Built {
  headers: Record<string, string>
  body: Buffer
  printable: string
}

function build(c: McpCase, index: number, fuzz: FuzzApp): Built {
  const headers: Record<string, string> = { ...JSON_RPC_HEADERS }
  if (c.accept === null) delete headers.accept
  else if (c.accept !== undefined) headers.accept = c.accept
  if (c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json'
  let text: string
  let body: Buffer
  if (c.message.kind === 'raw') {
    const raw = c.message.text
    body = Buffer.isBuffer(raw) ? raw : Buffer.from(raw, 'utf8')
    text = Buffer.isBuffer(raw) ? `<bytes ${raw.toString('hex')}>` : raw
  } else {
    const params = { name: c.message.name, arguments: c.message.args }
    text = jsonText({ jsonrpc: '2.0', id: index, method: 'tools/call', params }, fuzz.pools.resolve)
    body = Buffer.from(text, 'utf8')
  }
  const shown = text.length > 400 ? `${text.slice(0, 400)}… (${text.length})` : text
  const printable =
    `[${c.strategy}] ${c.tool}` +
    (c.contentType !== undefined ? ` content-type=${JSON.stringify(c.contentType)}` : '') +
    (c.accept !== undefined ? ` accept=${JSON.stringify(c.accept)}` : '') +
    ` body=${shown}`
  return { headers, body, printable }
}

type Outcome = { kind: 'ok' } | { kind: 'refused'; how: string } | { kind: 'bad'; what: string }

/** Reads a 2xx answer: a tool result, a tool error (its problem checked), a JSON-RPC error. */
function readAnswer(res: RawResponse): Outcome {
  if (res.status === 202) return { kind: 'ok' } // a notification
  let message: Record<string, unknown>
  try {
    message = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>
  } catch {
    return { kind: 'bad', what: `${res.status} answer is not JSON` }
  }
  if (Array.isArray(message)) return { kind: 'ok' } // a batch the SDK answered
  if (message.error) {
    const error = message.error as { code?: unknown; message?: unknown }
    if (typeof error.code !== 'number' || typeof error.message !== 'string') {
      return { kind: 'bad', what: 'JSON-RPC error without code and message' }
    }
    if (error.code === -32603) return { kind: 'bad', what: `JSON-RPC internal error` }
    return { kind: 'refused', how: `json-rpc ${error.code}` }
  }
  const result = message.result as
    | { isError?: boolean; content?: Array<{ text?: string }>; structuredContent?: unknown }
    | undefined
  if (!result) return { kind: 'bad', what: 'neither result nor error' }
  if (result.isError !== true) return { kind: 'ok' }
  let problem: Record<string, unknown>
  try {
    problem = JSON.parse(result.content?.[0]?.text ?? '') as Record<string, unknown>
  } catch {
    return { kind: 'bad', what: 'tool error text is not JSON' }
  }
  if (
    typeof problem.type !== 'string' ||
    typeof problem.title !== 'string' ||
    typeof problem.status !== 'number' ||
    typeof problem.detail !== 'string'
  ) {
    return { kind: 'bad', what: 'tool error lacks type/title/status/detail' }
  }
  try {
    assert.deepEqual(result.structuredContent, problem)
  } catch {
    return { kind: 'bad', what: 'tool error: structured content differs from its text' }
  }
  if (problem.status >= 500)
    return { kind: 'bad', what: `tool error with status ${problem.status}` }
  return { kind: 'refused', how: `tool ${problem.status}` }
}

/** A 4xx from /mcp: problem+json (auth, body parsing) or the transport's JSON-RPC error. */
function fourxxProblem(res: RawResponse): string | null {
  if (/^application\/problem\+json/.test(res.contentType)) {
    const p = problemOf(res)
    return typeof p === 'string' ? p : null
  }
  try {
    const body = JSON.parse(res.body.toString('utf8')) as { jsonrpc?: unknown; error?: unknown }
    const error = body.error as { code?: unknown; message?: unknown } | undefined
    if (body.jsonrpc === '2.0' && typeof error?.code === 'number') return null
  } catch {
    // falls through
  }
  return `4xx neither problem+json nor a JSON-RPC error (content-type "${res.contentType}")`
}

test(`MCP fuzz: seeded hostile calls of every tool over /mcp (seed ${seed})`, async (t) => {
  const fuzz = await startFuzzApp(t)
  const { app } = fuzz
  const list = await send(
    app.url,
    'POST',
    '/mcp',
    { ...JSON_RPC_HEADERS, 'content-type': 'application/json' },
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} })),
  )
  assert.equal(list.status, 200, describeAnswer(list))
  const tools = (JSON.parse(list.body.toString('utf8')) as { result: { tools: ToolSchema[] } })
    .result.tools
  assert.ok(tools.length >= 30, `${tools.length} tools`)
  const arbitrary = fc.oneof(...tools.map((tool) => ({ weight: 4, arbitrary: mcpCase(tool) })), {
    weight: Math.ceil(tools.length / 2),
    arbitrary: mcpTransportCase,
  })
  const cases = fc.sample(arbitrary, { seed, numRuns: requests })
  const tally = new Tally('mcp', seed)
  const outcomes = new Map<string, number>()
  let tool5xx = 0
  let current = await fingerprint(app)
  for (const [index, c] of cases.entries()) {
    if (index % 100 === 0) await refreshPools(app, fuzz.pools)
    const req = build(c, index + 1, fuzz)
    let res: RawResponse
    try {
      res = await send(app.url, 'POST', '/mcp', req.headers, req.body)
    } catch (error) {
      tally.count(null, 0, req.printable, c.strategy)
      tally.find({ index, what: 'no answer', request: req.printable, answer: String(error) })
      continue
    }
    tally.count(res.status, res.ms, req.printable, c.strategy)
    const problems = answerProblems(res, 'POST').filter((p) => !p.startsWith('4xx'))
    let outcome: Outcome
    if (res.status >= 400 && res.status < 500) {
      const bad = fourxxProblem(res)
      outcome = bad ? { kind: 'bad', what: bad } : { kind: 'refused', how: `http ${res.status}` }
    } else if (res.status < 300) {
      outcome = readAnswer(res)
    } else {
      outcome = { kind: 'ok' }
    }
    if (outcome.kind === 'bad') problems.push(outcome.what)
    if (outcome.kind === 'bad' && outcome.what.startsWith('tool error with status 5')) tool5xx++
    const key = outcome.kind === 'refused' ? outcome.how : outcome.kind
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
    for (const what of problems) {
      tally.find({ index, what, request: req.printable, answer: describeAnswer(res) })
    }
    if (outcome.kind === 'ok') await syncSettled(app)
    current = await checkRefusedChangedNothing(
      app,
      tally,
      { index, refused: outcome.kind === 'refused', request: req.printable, answer: res },
      current,
    )
  }
  await expectStatus(app, 'GET', '/healthz', 200)
  const { kept, counted } = await keptAndCountedTransactions(app)
  assert.deepEqual(kept, counted, 'the kept transaction counts against the rows')
  // Whatever the tools changed, they changed with its events: the log folds to the ledger.
  await assertLogFoldsToLedger(app, { token: TOKEN })
  const summary = tally.summary(`, tool errors with a 5xx problem ${tool5xx}`)
  t.diagnostic(summary)
  t.diagnostic(
    `outcomes: ${[...outcomes]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}; tools: ${tools.length}`,
  )
  tally.assertClean()
})
