// Limits on the request line and headers, answered as problem details (CONTRACT
// 3) rather than Node's or Fastify's own bodies: a URL over URL_MAX_BYTES is 414;
// headers over HEADER_MAX_BYTES in all (Node's parser limit, raised from its 16
// KiB default so that the URL check sees such URLs first) are 431; a request
// Node cannot parse at all is 400, and one too slow to arrive 408.
import http from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'
import { ServiceError } from '../errors.js'
import { problem } from './problem.js'

export const URL_MAX_BYTES = 16 * 1024
export const HEADER_MAX_BYTES = 64 * 1024

class UriTooLong extends ServiceError {
  readonly status = 414
}

/** onRequest: the path and query together at most URL_MAX_BYTES. */
export async function checkUrlLength(request: FastifyRequest): Promise<void> {
  if (Buffer.byteLength(request.url) > URL_MAX_BYTES) {
    throw new UriTooLong(`the URL is longer than ${URL_MAX_BYTES / 1024} KiB`)
  }
}

/** Fastify's clientErrorHandler: errors before a request exists. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const [status, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, `the request headers are larger than ${HEADER_MAX_BYTES / 1024} KiB`]
        : [400, 'the request could not be parsed as HTTP']
  const body = JSON.stringify(problem(status, detail))
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        'Content-Type: application/problem+json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    )
  }
  socket.destroy()
}
