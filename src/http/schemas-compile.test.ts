// Every route's request validators and response serialisers, and every MCP tool's
// argument validator, compile: the service builds each only at its first use
// (validation.ts, serialization.ts), so a schema that cannot compile would
// otherwise first fail on a request, in whichever process first made it.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import { TOOLS } from '../mcp/tools.js'
import { MCP_ROUTES } from '../mcp/http.js'
import { ROUTES } from './routes.js'
import { compileStrict, validatorCompiler } from './validation.js'

const PARTS = ['body', 'querystring', 'params', 'headers'] as const

test('every route schema and MCP tool schema compiles', () => {
  // Fastify's own serialiser factory, which serialization.ts defers: called here, it compiles.
  const compileSerializer = SerializerSelector()(undefined, {})
  let compiled = 0
  for (const { method, url, schema } of [...ROUTES, ...MCP_ROUTES]) {
    const where = `${String(method)} ${url}`
    for (const httpPart of PARTS) {
      const part = (schema as Record<string, unknown>)[httpPart]
      if (part === undefined) continue
      const validate = validatorCompiler({ schema: part, method: String(method), url, httpPart })
      // The first call compiles; what it answers for {} does not matter here.
      assert.doesNotThrow(() => validate({}), `${where} ${httpPart}`)
      compiled++
    }
    const responses = (schema as { response?: Record<string, unknown> }).response ?? {}
    for (const [httpStatus, response] of Object.entries(responses)) {
      assert.doesNotThrow(
        () => compileSerializer({ schema: response, method: String(method), url, httpStatus }),
        `${where} ${httpStatus}`,
      )
      compiled++
    }
  }
  for (const tool of TOOLS) {
    assert.doesNotThrow(() => compileStrict(tool.inputSchema)({}), tool.name)
    compiled++
  }
  assert.ok(compiled > 100, `only ${compiled} schemas found`)
})
