// The dashboard (web/, built into dist/web): its hashed assets with a year's
// cache, and index.html for every other page path (history-API routing), with
// the dashboard's Content-Security-Policy. Answers are sent precompressed
// (brotli or gzip, written at build time by scripts/compress-web.mjs). Open
// routes: the files hold no data; the pages ask /api/v1 for it with the token.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import Type from 'typebox'
import { problem, sendProblem } from './problem.js'
import { route, type Route } from './route.js'
import { API_CSP, DASHBOARD_CSP } from './security-headers.js'
import type { App } from './types.js'

/** Where the built dashboard is: beside dist/http when built, dist/web from src/ under tsx. */
export function dashboardDir(): string | null {
  for (const candidate of ['../web/', '../../dist/web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url))
    if (existsSync(`${dir}index.html`)) return dir
  }
  return null
}

/** Paths that are never dashboard pages: an unknown one stays a 404 problem. */
const NOT_PAGES = /^\/(api|mcp|healthz|readyz|metrics)(\/|$)/

const YEAR_SECONDS = 365 * 24 * 3600
const hidden = { hide: true }
const Wildcard = Type.Object({ '*': Type.String() })

/** Registers the file sender (reply.sendFile); the routes below use it. */
export async function registerDashboardFiles(app: App, dir: string | null): Promise<void> {
  if (dir === null) return
  await app.register(fastifyStatic, {
    root: dir,
    serve: false,
    preCompressed: true,
    // index.html and page paths are revalidated (a new version shows at once);
    // the hashed assets never change under their name.
    cacheControl: false,
    etag: true,
    lastModified: true,
  })
}

export function dashboardRoutes(dir: string | null): Route[] {
  const notBuilt = problem(
    404,
    'the dashboard is not built: run `npm run build` (README), then start the service again',
  )
  const page = route(
    'GET',
    '/*',
    'open',
    { ...hidden, params: Wildcard },
    async (_deps, request, reply) => {
      const path = request.url.split('?')[0] ?? '/'
      if (NOT_PAGES.test(path)) {
        reply.raw.setHeader('Content-Security-Policy', API_CSP)
        return sendProblem(reply, problem(404, `no route for ${request.method} ${path}`))
      }
      if (dir === null) return sendProblem(reply, notBuilt)
      void reply.header('cache-control', 'no-cache')
      return reply.type('text/html; charset=utf-8').sendFile('index.html')
    },
    { csp: DASHBOARD_CSP },
  )
  const asset = route(
    'GET',
    '/assets/*',
    'open',
    { ...hidden, params: Wildcard },
    async (_deps, request, reply) => {
      if (dir === null) return sendProblem(reply, notBuilt)
      return reply.sendFile(`assets/${request.params['*']}`, {
        immutable: true,
        maxAge: YEAR_SECONDS * 1000,
        cacheControl: true,
      })
    },
    { csp: DASHBOARD_CSP },
  )
  const favicon = route(
    'GET',
    '/favicon.svg',
    'open',
    hidden,
    async (_deps, _request, reply) => {
      if (dir === null) return sendProblem(reply, notBuilt)
      return reply.sendFile('favicon.svg', { maxAge: 24 * 3600 * 1000, cacheControl: true })
    },
    { csp: DASHBOARD_CSP },
  )
  return [page, asset, favicon]
}
