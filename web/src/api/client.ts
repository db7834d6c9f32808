// The one way the dashboard talks to the service: `api('GET /transactions',
// {query})`. Parameters and results are typed from the route's schema
// (endpoints.ts), the bearer token is added, every answer is checked against
// the schema before a page sees it, and every failure becomes an ApiError
// carrying the service's problem details. No component calls fetch.
import type { Static, TSchema } from 'typebox'
import Value from 'typebox/value'
import { ENDPOINTS, type Endpoint } from './endpoints.js'

type Schema<E extends Endpoint> = (typeof ENDPOINTS)[E]
type Part<S, K extends string> = S extends { [P in K]: infer X extends TSchema }
  ? Static<X>
  : undefined

export type Params<E extends Endpoint> = Part<Schema<E>, 'params'>
export type Query<E extends Endpoint> = Part<Schema<E>, 'querystring'>
export type Body<E extends Endpoint> = Part<Schema<E>, 'body'>
type Success<R> = R extends { 200: infer X extends TSchema }
  ? Static<X>
  : R extends { 201: infer X extends TSchema }
    ? Static<X>
    : R extends { 202: infer X extends TSchema }
      ? Static<X>
      : undefined
export type Result<E extends Endpoint> = Success<Schema<E>['response']>

/**
 * A body is a typed value, serialized here, or (`rawBody`) JSON text sent as it
 * is: for values a round trip through JSON.parse would change (an extension's
 * 12345678901234567890 becomes 12345678901234567000), so the service judges
 * exactly what the person typed.
 */
type BodyArgs<E extends Endpoint> =
  Body<E> extends undefined
    ? unknown
    : { body: Body<E>; rawBody?: never } | { rawBody: string; body?: never }

type Args<E extends Endpoint> = (Params<E> extends undefined ? unknown : { params: Params<E> }) &
  (Query<E> extends undefined ? unknown : { query?: Partial<Query<E>> }) &
  BodyArgs<E> & { signal?: AbortSignal }

/** A field error of a 400 (CONTRACT 3). */
export interface FieldError {
  field: string
  message: string
}

/** A failed call: the service's problem details, or what went wrong reaching it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail)
    this.name = 'ApiError'
  }

  /** The character offset a search or rule query error names ("at offset 12"), if any. */
  get offset(): number | null {
    const match = /\b(?:offset|character|position) (\d+)/i.exec(this.detail)
    return match ? Number(match[1]) : null
  }
}

const TOKEN_KEY = 'coffer.token'

/** The bearer token the browser keeps (the dashboard token or an API key). */
export const tokenStore = {
  get(): string | null {
    try {
      return localStorage.getItem(TOKEN_KEY)
    } catch {
      return null
    }
  },
  set(token: string | null): void {
    try {
      if (token === null) localStorage.removeItem(TOKEN_KEY)
      else localStorage.setItem(TOKEN_KEY, token)
    } catch {
      // Storage refused (private mode): the token lives as long as the page.
    }
  },
}

/** Told of every 401, so that the session can ask for a token again. */
let onUnauthorized: (() => void) | null = null
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler
}

/** Path and query values are strings, numbers or booleans (the route schemas say so). */
type Scalar = string | number | boolean | null | undefined

function pathOf(template: string, params: Record<string, Scalar> | undefined): string {
  return template.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = params?.[name]
    if (value === undefined || value === null) throw new Error(`missing path parameter ${name}`)
    return encodeURIComponent(String(value))
  })
}

function queryOf(query: Record<string, Scalar> | undefined): string {
  if (!query) return ''
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue
    search.set(key, String(value))
  }
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}

/** The URL of an endpoint, e.g. for a link; the same rules as `api`. */
export function urlOf(template: string, params?: object, query?: object): string {
  return `/api/v1${pathOf(template, params as Record<string, Scalar>)}${queryOf(query as Record<string, Scalar>)}`
}

async function problemOf(response: Response): Promise<ApiError> {
  let body: unknown = null
  try {
    body = await response.json()
  } catch {
    // not JSON: described by the status below
  }
  if (body && typeof body === 'object' && 'detail' in body) {
    const p = body as { title?: unknown; detail?: unknown; errors?: unknown }
    return new ApiError(
      response.status,
      typeof p.title === 'string' ? p.title : response.statusText,
      typeof p.detail === 'string' ? p.detail : response.statusText,
      Array.isArray(p.errors) ? (p.errors as FieldError[]) : [],
    )
  }
  return new ApiError(
    response.status,
    response.statusText,
    `the service answered ${response.status} ${response.statusText}`,
  )
}

export async function api<E extends Endpoint>(
  endpoint: E,
  ...rest: object extends Args<E> ? [Args<E>?] : [Args<E>]
): Promise<Result<E>> {
  const args = (rest[0] ?? {}) as {
    params?: Record<string, Scalar>
    query?: Record<string, Scalar>
    body?: unknown
    rawBody?: string
    signal?: AbortSignal
  }
  const space = endpoint.indexOf(' ')
  const method = endpoint.slice(0, space)
  const url = urlOf(endpoint.slice(space + 1), args.params, args.query)
  const headers: Record<string, string> = { accept: 'application/json' }
  const token = tokenStore.get()
  if (token) headers.authorization = `Bearer ${token}`
  const body =
    args.rawBody !== undefined
      ? args.rawBody
      : args.body === undefined
        ? null
        : JSON.stringify(args.body)
  if (body !== null) headers['content-type'] = 'application/json'

  let response: Response
  try {
    response = await fetch(url, {
      method,
      headers,
      body,
      signal: args.signal ?? null,
      credentials: 'omit',
    })
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    throw new ApiError(0, 'Unreachable', 'the service could not be reached; is it running?')
  }
  if (!response.ok) {
    const failure = await problemOf(response)
    if (response.status === 401) onUnauthorized?.()
    throw failure
  }
  if (response.status === 204) return undefined as Result<E>
  const data: unknown = await response.json()
  const schema = ENDPOINTS[endpoint].response as Record<number, TSchema>
  const expected = schema[response.status]
  if (expected && !Value.Check(expected, data)) {
    const first = Value.Errors(expected, data)[0]
    console.warn('unexpected answer', endpoint, first)
    throw new ApiError(
      response.status,
      'Unexpected answer',
      `the service's answer to ${endpoint} does not have the documented shape` +
        (first ? ` (${first.instancePath || '/'}: ${first.message})` : ''),
    )
  }
  return data as Result<E>
}
