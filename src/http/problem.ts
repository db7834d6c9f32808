// The one place errors become HTTP answers: RFC 9457 problem details
// (CONTRACT 3). Service errors keep their status; Fastify's own errors (bad JSON,
// validation, body too large) become 4xx; anything else is a generic 500 whose
// detail never carries internals (they go to the log).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { STATUS_CODES } from 'node:http'
import { isDatabaseUnavailable } from '../db/faults.js'
import { ServiceError, type FieldError } from '../errors.js'
import { requestFields } from './access-log.js'
import { UnusableJsonError } from './json-body.js'

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  errors?: FieldError[]
}

export function problem(status: number, detail: string, errors?: FieldError[]): ProblemBody {
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    ...(errors && errors.length > 0 ? { errors } : {}),
  }
}

export const DATABASE_UNAVAILABLE_DETAIL =
  'the database is unavailable (a lost connection or a lock held too long); retry shortly'

/** Seconds a client is told to wait before retrying a 503. */
const RETRY_AFTER_SECONDS = 1

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  if (body.status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  return reply.code(body.status).type('application/problem+json').send(body)
}

interface AjvIssue {
  instancePath?: string
  keyword?: string
  message?: string
  params?: Record<string, unknown>
}

function fieldOf(issue: AjvIssue, context: string | undefined): string {
  const path = (issue.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') {
    path.push(issue.params.missingProperty)
  }
  if (
    issue.keyword === 'additionalProperties' &&
    typeof issue.params?.additionalProperty === 'string'
  ) {
    path.push(issue.params.additionalProperty)
  }
  const field = path.join('.')
  return field || (context === 'body' ? 'body' : (context ?? 'request'))
}

function messageOf(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field'
  if (issue.keyword === 'required') return 'is required'
  return issue.message ?? 'is invalid'
}

/** Ajv reports each failing branch of a union; keep one message per field. */
function validationErrors(issues: readonly AjvIssue[], context: string | undefined): FieldError[] {
  const seen = new Map<string, FieldError>()
  for (const issue of issues) {
    const field = fieldOf(issue, context)
    if (!seen.has(field)) seen.set(field, { field, message: messageOf(issue) })
  }
  return [...seen.values()]
}

/**
 * `request` supplies the logger for unexpected errors (MCP passes the service
 * log) and, when it is an HTTP request, the method, path and route pattern that
 * the error line carries beside the request id and the stack.
 */
export function toProblem(
  error: unknown,
  request: Pick<FastifyRequest, 'log'> | FastifyRequest,
): ProblemBody {
  if (error instanceof ServiceError) return problem(error.status, error.message, error.errors)
  const fe = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string }
  if (fe.validation) {
    const errors = validationErrors(fe.validation, fe.validationContext)
    const where =
      fe.validationContext === 'body' ? 'request body' : (fe.validationContext ?? 'request')
    return problem(
      400,
      `invalid ${where}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`,
      errors,
    )
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'the request body is larger than 1 MiB')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem(415, 'request bodies must be JSON (Content-Type: application/json)')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'the request body is empty; send a JSON object')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(400, 'the Content-Length header does not match the body')
    case 'FST_ERR_HANDLER_TIMEOUT': {
      // A read that ran past its bound (server.ts GET_HANDLER_TIMEOUT_MS).
      const where = 'method' in request ? requestFields(request) : {}
      request.log.warn({ ...where }, 'request timed out')
      return problem(503, 'the request took too long to answer; try again, or narrow it')
    }
    default:
      break
  }
  if (error instanceof UnusableJsonError) {
    return problem(400, error.message)
  }
  if (error instanceof SyntaxError || fe.code === 'FST_ERR_BAD_JSON') {
    return problem(
      400,
      `the request body is not valid JSON: ${error instanceof Error ? error.message : ''}`,
    )
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500
  if (status >= 400 && status < 500) return problem(status, fe.message || 'bad request')
  const where = 'method' in request ? requestFields(request) : {}
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ ...where, err: error }, 'request failed: the database is unavailable')
    return problem(503, DATABASE_UNAVAILABLE_DETAIL)
  }
  request.log.error({ ...where, err: error }, 'request failed')
  return problem(500, 'internal error; see the service log')
}
