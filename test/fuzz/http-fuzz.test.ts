// Schema-driven HTTP fuzz pass (issue 17; docs/security.md "Fuzzing"): for every
// operation of the service's own /api/v1/openapi.json, seeded hostile requests
// (generate.ts). Every answer: no 5xx, a 4xx is problem+json with type, title,
// status and detail, none slower than 5 s; a refused (4xx) request changes
// nothing (harness.ts fingerprint); the service answers /healthz at the end.
// COFFER_FUZZ_SEED and COFFER_FUZZ_REQUESTS choose the seed and the count.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { expectStatus } from '../helpers/http.js'
import { headSequence, keptAndCountedTransactions } from '../helpers/ledger.js'
import { assertLogFoldsToLedger } from '../helpers/log-fold.js'
import {
  describe,
  encodeSegment,
  httpCase,
  jsonText,
  operationsOf,
  serializeQuery,
  type HttpCase,
} from './generate.js'
import {
  answerProblems,
  bearer,
  describeAnswer,
  checkRefusedChangedNothing,
  fingerprint,
  fuzzSettings,
  refreshPools,
  send,
  startFuzzApp,
  syncSettled,
  Tally,
  TOKEN,
  type FuzzApp,
} from './harness.js'

const { seed, requests } = fuzzSettings('http', 3000)

/**
 * Operations not fuzzed, each for a reason that is about the test, not the route:
 * - GET /api/v1/events/stream: a 200 is an endless SSE stream (its hostile queries
 *   are covered by test/hostile-loose.test.ts and test/sse.test.ts);
 * - GET /api/v1/openapi.json: it is the fuzzer's input, and has no parameters;
 * - /mcp: JSON-RPC over HTTP, fuzzed by mcp-fuzz.test.ts with its own rules.
 */
const EXCLUDED = new Set([
  'GET /api/v1/events/stream',
  'GET /api/v1/openapi.json',
  'POST /mcp',
  'GET /mcp',
  'DELETE /mcp',
])

interface Built {
  method: string
  path: string
  headers: Record<string, string>
  body: Buffer | null
  printable: string
}

function build(c: HttpCase, fuzz: FuzzApp): Built {
  const resolve = fuzz.pools.resolve
  const path = c.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    c.segments[name] ? encodeSegment(c.segments[name], resolve) : 'missing',
  )
  const url = path + serializeQuery(c.query, resolve)
  const headers: Record<string, string> = {}
  const token = bearer(c.auth, fuzz.keys)
  if (token) headers.authorization = token
  let body: Buffer | null = null
  let bodyText = ''
  if (c.body.kind === 'json') {
    bodyText = jsonText(c.body.value, resolve)
    body = Buffer.from(bodyText, 'utf8')
  } else if (c.body.kind === 'text') {
    body = Buffer.isBuffer(c.body.text) ? c.body.text : Buffer.from(c.body.text, 'utf8')
    bodyText = Buffer.isBuffer(c.body.text) ? `<bytes ${c.body.text.toString('hex')}>` : c.body.text
  }
  if (body && c.contentType !== null) headers['content-type'] = c.contentType ?? 'application/json'
  Object.assign(headers, c.headers)
  const shown = bodyText.length > 300 ? `${bodyText.slice(0, 300)}… (${bodyText.length})` : bodyText
  const printable =
    `[${c.strategy}] ${c.method} ${url.length > 300 ? `${url.slice(0, 300)}… (${url.length})` : url}` +
    ` auth=${c.auth}` +
    (c.contentType !== undefined ? ` content-type=${describe(c.contentType)}` : '') +
    (Object.keys(c.headers).length ? ` headers=${describe(c.headers, 120)}` : '') +
    (body ? ` body=${shown}` : '')
  return { method: c.method, path: url, headers, body, printable }
}

test(`HTTP fuzz: seeded hostile requests to every OpenAPI operation (seed ${seed})`, async (t) => {
  const fuzz = await startFuzzApp(t)
  const { app } = fuzz
  const doc = await expectStatus(app, 'GET', '/api/v1/openapi.json', 200)
  const operations = operationsOf(doc).filter((op) => !EXCLUDED.has(`${op.method} ${op.path}`))
  assert.ok(operations.length >= 50, `${operations.length} operations`)
  // Operations with a body have the most to get wrong: they are drawn three times as often.
  const arbitrary = fc.oneof(
    ...operations.map((op) => ({ weight: op.body ? 3 : 1, arbitrary: httpCase(op) })),
  )
  const cases = fc.sample(arbitrary, { seed, numRuns: requests })
  const tally = new Tally('http', seed)
  let current = await fingerprint(app)
  for (const [index, c] of cases.entries()) {
    if (index % 100 === 0) await refreshPools(app, fuzz.pools)
    const req = build(c, fuzz)
    let res
    try {
      res = await send(app.url, req.method, req.path, req.headers, req.body)
    } catch (error) {
      tally.count(null, 0, req.printable, c.strategy)
      tally.find({
        index,
        what: 'no answer',
        request: req.printable,
        answer: String(error),
      })
      continue
    }
    tally.count(res.status, res.ms, req.printable, c.strategy)
    // A 5xx shows the service's last error line (the service logs at level error here).
    const logged = res.status >= 500 ? `\n    log:     ${app.logs.at(-1)?.slice(0, 600)}` : ''
    for (const what of answerProblems(res, req.method)) {
      tally.find({ index, what, request: req.printable, answer: describeAnswer(res) + logged })
    }
    // A 202 sync trigger (POST /sync, /sources/{type}/sync, also reached by the
    // 'method' strategy) records its run before answering, and its end (an event)
    // after: wait for it, so that the end is not taken for a later request's write.
    if (res.status < 300) await syncSettled(app)
    current = await checkRefusedChangedNothing(
      app,
      tally,
      {
        index,
        refused: res.status >= 400 && res.status < 500,
        request: req.printable,
        answer: res,
      },
      current,
    )
  }
  await expectStatus(app, 'GET', '/healthz', 200)
  const { kept, counted } = await keptAndCountedTransactions(app)
  assert.deepEqual(kept, counted, 'the kept transaction counts against the rows')
  // The log the API shows is the one the fingerprint read.
  assert.equal(String(await headSequence(app, { token: TOKEN })), current.head)
  // Whatever the fuzz changed, it changed with its events: the log folds to the ledger.
  await assertLogFoldsToLedger(app, { token: TOKEN })
  const strategies = [...tally.byStrategy].map(([s, n]) => `${s} ${n}`).join(', ')
  const summary = tally.summary()
  t.diagnostic(summary)
  t.diagnostic(`strategies: ${strategies}; operations: ${operations.length}`)
  tally.assertClean()
})
