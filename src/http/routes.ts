// Every HTTP route on one screen: method, path, tier (SPEC 4, 5.1), schema
// (src/schemas/) and handler (routes/<resource>.ts). server.ts registers them in
// this order; static paths win over parameters in the router whatever the order.
// /mcp is mounted by app.ts from mcp/http.ts (MCP_ROUTES) when mcp.enabled.
import { AccountRoutes as A } from '../schemas/accounts.js'
import { EventRoutes as E } from '../schemas/events.js'
import { ExportRoutes as X } from '../schemas/export.js'
import { RuleRoutes as R } from '../schemas/rules.js'
import { SecurityRoutes as K } from '../schemas/security.js'
import { SettingRoutes as Se } from '../schemas/settings.js'
import { SummaryRoutes as Su } from '../schemas/summary.js'
import { SourceRoutes as So } from '../schemas/sources.js'
import { SyncRoutes as Sy } from '../schemas/sync.js'
import { SystemRoutes as Sys } from '../schemas/system.js'
import { TransactionRoutes as T } from '../schemas/transactions.js'
import { UpdateRoutes as U } from '../schemas/update.js'
import { PluginRoutes as P } from '../schemas/plugins.js'
import { WebhookRoutes as W } from '../schemas/webhooks.js'
import { route, type Route } from './route.js'
import * as accounts from './routes/accounts.js'
import * as events from './routes/events.js'
import * as exports from './routes/export.js'
import * as rules from './routes/rules.js'
import * as security from './routes/security.js'
import * as settings from './routes/settings.js'
import * as sources from './routes/sources.js'
import * as sync from './routes/sync.js'
import * as system from './routes/system.js'
import * as transactions from './routes/transactions.js'
import * as update from './routes/update.js'
import * as plugins from './routes/plugins.js'
import * as webhooks from './routes/webhooks.js'

// prettier-ignore
export const ROUTES: readonly Route[] = [
  route('GET',    '/healthz',                                 'open',  Sys.healthz,             system.healthz),
  route('GET',    '/readyz',                                  'open',  Sys.readyz,              system.readyz),
  route('GET',    '/metrics',                                 'open',  Sys.metrics,             system.metrics),
  route('GET',    '/api/v1/auth',                             'open',  Sys.auth,                system.auth),
  route('GET',    '/api/v1/config',                           'read',  Sys.config,              system.config),
  route('GET',    '/api/v1/openapi.json',                     'open',  Sys.openapi,             system.openapi),
  route('GET',    '/api/v1/update',                           'read',  U.status,                update.status),
  route('POST',   '/api/v1/update',                           'admin', U.apply,                 update.apply),

  route('GET',    '/api/v1/organizations',                    'read',  A.listOrganizations,     accounts.listOrgs),
  route('GET',    '/api/v1/accounts',                         'read',  A.list,                  accounts.list),
  route('GET',    '/api/v1/accounts/:id',                     'read',  A.get,                   accounts.get),
  route('GET',    '/api/v1/accounts/:id/transactions',        'read',  A.listTransactions,      accounts.listTransactions),
  route('POST',   '/api/v1/accounts',                         'write', A.create,                accounts.create),
  route('PUT',    '/api/v1/accounts/:id',                     'write', A.update,                accounts.update),
  route('DELETE', '/api/v1/accounts/:id',                     'write', A.delete,                accounts.remove),

  route('GET',    '/api/v1/transactions',                     'read',  T.list,                  transactions.list),
  route('GET',    '/api/v1/transactions/search',              'read',  T.search,                transactions.search),
  route('GET',    '/api/v1/transactions/summary',             'read',  Su.summary,              transactions.summary),
  route('GET',    '/api/v1/transactions/:id',                 'read',  T.get,                   transactions.get),
  route('POST',   '/api/v1/transactions',                     'write', T.create,                transactions.create),
  route('PUT',    '/api/v1/transactions/:id',                 'write', T.update,                transactions.update),
  route('DELETE', '/api/v1/transactions/:id',                 'write', T.delete,                transactions.remove),
  route('GET',    '/api/v1/transactions/:id/history',         'read',  T.history,               transactions.history),
  route('GET',    '/api/v1/transactions/:id/provenance',      'read',  T.provenance,            transactions.provenance),
  route('PUT',    '/api/v1/transactions/:id/labels',          'write', T.setLabels,             transactions.setLabels),
  route('GET',    '/api/v1/labels',                           'read',  T.listLabels,            transactions.labels),
  route('DELETE', '/api/v1/labels/:key',                      'write', T.deleteLabel,           transactions.removeLabel),
  route('PUT',    '/api/v1/transactions/:id/extensions',      'write', T.setExtensions,         transactions.setExtensions),
  route('GET',    '/api/v1/extensions',                       'read',  T.listExtensions,        transactions.extensions),
  route('GET',    '/api/v1/transactions/:id/relationships',   'read',  T.getRelationships,      transactions.relationships),
  route('POST',   '/api/v1/transactions/:id/relationships',   'write', T.addRelationship,       transactions.relate),
  route('DELETE', '/api/v1/transactions/:id/relationships',   'write', T.removeRelationship,    transactions.unrelate),
  route('GET',    '/api/v1/relationships',                    'read',  T.listRelationshipKinds, transactions.relationshipKinds),
  route('GET',    '/api/v1/export',                           'read',  X.export,                exports.exportTransactionsRoute),

  route('GET',    '/api/v1/events',                           'read',  E.list,                  events.list),
  route('GET',    '/api/v1/events/stream',                    'read',  E.stream,                events.stream),
  route('GET',    '/api/v1/events/:sequence',                 'read',  E.get,                   events.get),

  route('POST',   '/api/v1/security/token',                   'admin', K.setToken,              security.setToken,
        { bootstrap: true }),
  route('DELETE', '/api/v1/security/token',                   'admin', K.revokeToken,           security.revokeToken),
  route('POST',   '/api/v1/security/api-keys',                'admin', K.createApiKey,          security.createKey),
  route('GET',    '/api/v1/security/api-keys',                'admin', K.listApiKeys,           security.listKeys),
  route('DELETE', '/api/v1/security/api-keys/:id',            'admin', K.revokeApiKey,          security.revokeKey),

  // Admin: SPEC 5.1 names settings and restart among admin powers (4.2 lists the GET with
  // the reads; docs/decisions.md).
  route('GET',    '/api/v1/settings',                         'admin', Se.list,                 settings.list),
  route('PUT',    '/api/v1/settings/:key',                    'admin', Se.set,                  settings.set),
  route('DELETE', '/api/v1/settings/:key',                    'admin', Se.reset,                settings.reset),
  route('POST',   '/api/v1/system/restart',                   'admin', Se.restart,              settings.restart),

  route('POST',   '/api/v1/sync',                             'write', Sy.trigger,              sync.trigger),
  route('GET',    '/api/v1/sync',                             'read',  Sy.latest,               sync.latest),
  route('GET',    '/api/v1/sync/history',                     'read',  Sy.history,              sync.history),

  route('GET',    '/api/v1/sources',                          'read',  So.list,                 sources.list),
  route('POST',   '/api/v1/sources/:type/sync',               'write', So.sync,                 sources.syncOne),
  route('PUT',    '/api/v1/sources/:type/credential',         'admin', So.setCredential,        sources.setCredential),
  route('PUT',    '/api/v1/aggregator/credential',            'admin', So.setAggregatorCredential, sources.setAggregatorCredential),
  route('DELETE', '/api/v1/sources/:type/credentials/:id',    'admin', So.deleteCredential,     sources.deleteCredential),
  route('GET',    '/api/v1/sources/csv/oauth/start',          'admin', So.oauthStart,           sources.oauthStart),
  // Open: the browser arrives from the consent screen without our token; the
  // single-use state it carries is what authorises it (CONTRACT 6).
  route('GET',    '/api/v1/sources/csv/oauth/callback',       'open',  So.oauthCallback,        sources.oauthCallback),

  route('GET',    '/api/v1/webhooks',                         'admin', W.list,                  webhooks.list),
  route('POST',   '/api/v1/webhooks',                         'admin', W.create,                webhooks.create),
  route('GET',    '/api/v1/webhooks/:id',                     'admin', W.get,                   webhooks.get),
  route('PUT',    '/api/v1/webhooks/:id',                     'admin', W.update,                webhooks.update),
  route('DELETE', '/api/v1/webhooks/:id',                     'admin', W.delete,                webhooks.remove),
  route('POST',   '/api/v1/webhooks/:id/test',                'admin', W.test,                  webhooks.test),
  route('POST',   '/api/v1/webhooks/:id/rotate-secret',       'admin', W.rotateSecret,          webhooks.rotateSecret),

  route('GET',    '/api/v1/rules',                            'read',  R.list,                  rules.list),
  route('POST',   '/api/v1/rules',                            'write', R.create,                rules.create),
  route('POST',   '/api/v1/rules/run',                        'write', R.runAll,                rules.runAll),
  route('POST',   '/api/v1/rules/preview',                    'write', R.preview,               rules.preview),
  route('GET',    '/api/v1/rules/:id',                        'read',  R.get,                   rules.get),
  route('PUT',    '/api/v1/rules/:id',                        'write', R.replace,               rules.replace),
  route('DELETE', '/api/v1/rules/:id',                        'write', R.delete,                rules.remove),
  route('POST',   '/api/v1/rules/:id/run',                    'write', R.run,                   rules.run),
  route('POST',   '/api/v1/rules/:id/unapply',                'write', R.unapply,               rules.unapply),

  // Plugins (CONTRACT 9): reads are read tier; rendering runs plugin code and is admin;
  // actions are write tier (and 503 without a dashboard token, in the handler).
  route('GET',    '/api/v1/plugins',                          'read',  P.list,                  plugins.list),
  route('GET',    '/api/v1/plugins/pages',                    'read',  P.pages,                 plugins.pages),
  route('GET',    '/api/v1/plugins/pages/:name',              'admin', P.renderPage,            plugins.renderPage),
  route('POST',   '/api/v1/plugins/pages/:name/action',       'write', P.pageAction,            plugins.pageAction),
  route('GET',    '/api/v1/plugins/registry',                 'admin', P.registry,              plugins.registry),
  route('POST',   '/api/v1/plugins/registry/:name/install',   'admin', P.install,               plugins.install),
  route('GET',    '/api/v1/plugins/:id',                      'read',  P.get,                   plugins.get),
  route('GET',    '/api/v1/plugins/:id/egress',               'admin', P.egress,                plugins.egress),
  route('POST',   '/api/v1/plugins/:id/enable',               'admin', P.enable,                plugins.enable, { preValidation: plugins.bodyOptional }),
  route('POST',   '/api/v1/plugins/:id/disable',              'admin', P.disable,               plugins.disable),
  route('POST',   '/api/v1/plugins/:id/reload',               'admin', P.reload,                plugins.reload),
  route('DELETE', '/api/v1/plugins/:id',                      'admin', P.uninstall,             plugins.uninstall),
]
