// Requests whose answer the test states: the status it expects (and, for a
// failure, an RFC 9457 problem body, CONTRACT 3), with the parsed body back.
// Every integration test asserts its requests through these two, so a wrong
// status always names the request and shows the body that came back.
import assert from 'node:assert/strict'
import type { RequestOptions, TestApp } from './app.js'

/** Parsed JSON bodies, as the tests read them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any

/** What a request sends besides its body: a token, headers. */
export type SendOptions = Omit<RequestOptions, 'body'>

async function send(
  app: Pick<TestApp, 'request'>,
  method: string,
  path: string,
  status: number,
  body: unknown,
  options: SendOptions,
) {
  const res = await app.request(method, path, body === undefined ? options : { ...options, body })
  assert.equal(res.status, status, `${method} ${path}: ${res.text}`)
  return res
}

/** Sends a request, asserts its status and returns the parsed body. */
export async function expectStatus(
  app: Pick<TestApp, 'request'>,
  method: string,
  path: string,
  status: number,
  body?: unknown,
  options: SendOptions = {},
): Promise<Json> {
  return (await send(app, method, path, status, body, options)).body
}

/** As expectStatus, for a failure: also asserts a problem+json answer; returns its body. */
export async function expectProblem(
  app: Pick<TestApp, 'request'>,
  method: string,
  path: string,
  status: number,
  body?: unknown,
  options: SendOptions = {},
): Promise<Json> {
  const res = await send(app, method, path, status, body, options)
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/)
  return res.body
}
