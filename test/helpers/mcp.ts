// The MCP client side of the tests: the SDK's own client over Streamable HTTP at
// /mcp, and tool results read the way CONTRACT 3c defines them (the REST body as
// JSON text and as structured content; an error carries the REST problem).
import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { TestApp } from './app.js'

// Tool results are compared whole, so they are kept untyped.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any

/** A connected client, closed after the test. */
export async function connectMcp(t: TestContext, app: TestApp, token: string): Promise<Client> {
  const client = new Client({ name: 'coffer-test', version: '1' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', app.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  t.after(() => client.close())
  return client
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

/** A successful tool result: its JSON text, checked equal to its structured content. */
export async function toolOk(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Json> {
  const result = await callTool(client, name, args)
  const text = (result.content[0] as { type: string; text: string }).text
  assert.notEqual(result.isError, true, `${name} failed: ${text}`)
  const body = JSON.parse(text) as unknown
  if (Array.isArray(body)) assert.equal(result.structuredContent, undefined)
  else assert.deepEqual(result.structuredContent, body, `${name}: structured != text`)
  return body
}

export interface ToolProblem {
  status: number
  detail: string
  errors?: Array<{ field: string; message: string }>
}

/** A tool error: the problem details, equal in text and structured content. */
export async function toolFails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolProblem> {
  const result = await callTool(client, name, args)
  assert.equal(result.isError, true, `${name} did not fail`)
  const text = (result.content[0] as { type: string; text: string }).text
  const body = JSON.parse(text) as ToolProblem
  assert.deepEqual(result.structuredContent, body)
  return body
}
