// Every API route the dashboard calls, keyed by "METHOD /path" (the path below
// /api/v1) and paired with the route's own schema from src/schemas/, the same
// object the server validates with and builds its OpenAPI document from. The
// client (client.ts) takes its parameter and result types from these schemas
// and checks every answer against them; test/web-endpoints.test.ts checks that
// each key names a route the server serves with that very schema.
import { AccountRoutes as A } from '../../../src/schemas/accounts.js'
import { EventRoutes as E } from '../../../src/schemas/events.js'
import { PluginRoutes as P } from '../../../src/schemas/plugins.js'
import { RuleRoutes as R } from '../../../src/schemas/rules.js'
import { SecurityRoutes as K } from '../../../src/schemas/security.js'
import { SettingRoutes as Se } from '../../../src/schemas/settings.js'
import { SummaryRoutes as S } from '../../../src/schemas/summary.js'
import { SourceRoutes as So } from '../../../src/schemas/sources.js'
import { SyncRoutes as Sy } from '../../../src/schemas/sync.js'
import { SystemRoutes as Sys } from '../../../src/schemas/system.js'
import { TransactionRoutes as T } from '../../../src/schemas/transactions.js'
import { UpdateRoutes as U } from '../../../src/schemas/update.js'
import { WebhookRoutes as W } from '../../../src/schemas/webhooks.js'

export const ENDPOINTS = {
  'GET /auth': Sys.auth,
  'GET /config': Sys.config,
  'GET /settings': Se.list,
  'PUT /settings/:key': Se.set,
  'DELETE /settings/:key': Se.reset,
  'POST /system/restart': Se.restart,
  'GET /update': U.status,
  'POST /update': U.apply,

  'GET /organizations': A.listOrganizations,
  'GET /accounts': A.list,
  'GET /accounts/:id': A.get,
  'GET /accounts/:id/transactions': A.listTransactions,
  'POST /accounts': A.create,
  'PUT /accounts/:id': A.update,
  'DELETE /accounts/:id': A.delete,

  'GET /transactions': T.list,
  'GET /transactions/search': T.search,
  'GET /transactions/summary': S.summary,
  'GET /transactions/:id': T.get,
  'POST /transactions': T.create,
  'PUT /transactions/:id': T.update,
  'DELETE /transactions/:id': T.delete,
  'GET /transactions/:id/history': T.history,
  'GET /transactions/:id/provenance': T.provenance,
  'PUT /transactions/:id/labels': T.setLabels,
  'GET /labels': T.listLabels,
  'DELETE /labels/:key': T.deleteLabel,
  'PUT /transactions/:id/extensions': T.setExtensions,
  'GET /extensions': T.listExtensions,
  'GET /transactions/:id/relationships': T.getRelationships,
  'POST /transactions/:id/relationships': T.addRelationship,
  'DELETE /transactions/:id/relationships': T.removeRelationship,
  'GET /relationships': T.listRelationshipKinds,

  'GET /events': E.list,
  'GET /events/:sequence': E.get,

  'POST /security/token': K.setToken,
  'DELETE /security/token': K.revokeToken,
  'POST /security/api-keys': K.createApiKey,
  'GET /security/api-keys': K.listApiKeys,
  'DELETE /security/api-keys/:id': K.revokeApiKey,

  'POST /sync': Sy.trigger,
  'GET /sync': Sy.latest,
  'GET /sync/history': Sy.history,

  'GET /sources': So.list,
  'POST /sources/:type/sync': So.sync,
  'PUT /sources/:type/credential': So.setCredential,
  'DELETE /sources/:type/credentials/:id': So.deleteCredential,
  'GET /sources/csv/oauth/start': So.oauthStart,

  'GET /webhooks': W.list,
  'POST /webhooks': W.create,
  'GET /webhooks/:id': W.get,
  'PUT /webhooks/:id': W.update,
  'DELETE /webhooks/:id': W.delete,
  'POST /webhooks/:id/test': W.test,
  'POST /webhooks/:id/rotate-secret': W.rotateSecret,

  'GET /rules': R.list,
  'POST /rules': R.create,
  'POST /rules/run': R.runAll,
  'POST /rules/preview': R.preview,
  'GET /rules/:id': R.get,
  'PUT /rules/:id': R.replace,
  'DELETE /rules/:id': R.delete,
  'POST /rules/:id/run': R.run,
  'POST /rules/:id/unapply': R.unapply,

  'GET /plugins': P.list,
  'GET /plugins/pages': P.pages,
  'GET /plugins/pages/:name': P.renderPage,
  'POST /plugins/pages/:name/action': P.pageAction,
  'GET /plugins/registry': P.registry,
  'POST /plugins/registry/:name/install': P.install,
  'GET /plugins/:id': P.get,
  'GET /plugins/:id/egress': P.egress,
  'POST /plugins/:id/enable': P.enable,
  'POST /plugins/:id/disable': P.disable,
  'POST /plugins/:id/reload': P.reload,
  'DELETE /plugins/:id': P.uninstall,
} as const

export type Endpoint = keyof typeof ENDPOINTS
