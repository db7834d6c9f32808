// The dashboard's endpoint table (web/src/api/endpoints.ts) names routes the
// service serves, each with the very schema the server validates with, so the
// client's types and answer checks cannot drift from the API.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ROUTES } from '../src/http/routes.js'
import { ENDPOINTS } from '../web/src/api/endpoints.js'

test('every dashboard endpoint is a route of the service with the same schema', () => {
  for (const [key, schema] of Object.entries(ENDPOINTS)) {
    const [method, path] = key.split(' ')
    const route = ROUTES.find(
      (r) => r.url === `/api/v1${path}` && [r.method].flat().includes(method as never),
    )
    assert.ok(route, `${key} is not a route of the service`)
    assert.equal(route.schema, schema, `${key} uses another schema than the route`)
  }
})
