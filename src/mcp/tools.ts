// The MCP tool catalogue (SPEC 4.7, CONTRACT 3c): one explicit list. Each tool's
// input schema is built from the REST route's own TypeBox schemas in src/schemas/
// (body fields, plus `id` for the path resource, plus the query of list routes),
// and each call is the same service function the route calls, so REST and MCP
// cannot drift.
// Ethereum address management is deliberately absent (SPEC 4.7).
import Type, { type Static, type TObject, type TProperties } from 'typebox'
import { createApiKey, listApiKeys, revokeApiKey } from '../auth/api-keys.js'
import type { ServiceContext } from '../context.js'
import { listEvents } from '../events/service.js'
import {
  createAccount,
  deleteAccount,
  getAccount,
  listAccounts,
  updateAccount,
} from '../ledger/accounts.js'
import { listExtensionKeys, setTransactionExtensions } from '../ledger/extensions.js'
import { getHistory } from '../ledger/history.js'
import { listLabels, setTransactionLabels } from '../ledger/labels.js'
import { getProvenance } from '../ledger/provenance.js'
import { getRelationships } from '../ledger/relationships.js'
import {
  createTransaction,
  deleteTransaction,
  getTransaction,
  listTransactions,
  updateTransaction,
} from '../ledger/transactions.js'
import { previewRule, runAllRules, runRule, unapplyRule } from '../rules/run.js'
import { createRule, deleteRule, getRule, listRules, replaceRule } from '../rules/store.js'
import type { PluginService } from '../plugins/index.js'
import type { SearchPool } from '../search/pool/pool.js'
import { listSources } from '../sync/source-entries.js'
import { AccountListQuery, CreateAccountBody, UpdateAccountBody } from '../schemas/accounts.js'
import { Id } from '../schemas/common.js'
import { EventListQuery } from '../schemas/events.js'
import { EnableBody, PageParams, PluginParams } from '../schemas/plugins.js'
import { PreviewBody, RuleBody, RuleListQuery } from '../schemas/rules.js'
import { CreateApiKeyBody } from '../schemas/security.js'
import { SetSettingBody, SettingKey } from '../schemas/settings.js'
import { SourceType } from '../schemas/sources.js'
import {
  CreateTransactionBody,
  ExtensionsBody,
  LabelsBody,
  TransactionListQuery,
  TransactionSearchQuery,
  UpdateTransactionBody,
} from '../schemas/transactions.js'
import { SummaryQuery } from '../schemas/summary.js'
import { CreateWebhookBody, UpdateWebhookBody } from '../schemas/webhooks.js'
import type { SyncService } from '../sync/index.js'
import type { Settings } from '../settings/service.js'
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook } from '../webhooks/registry.js'
import { sendTestDelivery } from '../webhooks/send-test.js'

/** What tools receive: the service context, the sync service the sync tools drive, the search pool. */
export interface ToolDeps {
  ctx: ServiceContext
  sync: SyncService
  searches: SearchPool
  /** The running service's settings: on the HTTP transport (admin) only, not over stdio. */
  settings?: Settings
  /** The running service's plugins: on the HTTP transport (admin) only, like settings. */
  plugins?: PluginService
}

export interface Tool {
  name: string
  description: string
  /** A JSON Schema object; arguments are checked against it strictly (no coercion). */
  inputSchema: TObject
  /** Takes arguments already validated against inputSchema; returns the REST response body. */
  call(deps: ToolDeps, input: unknown): Promise<unknown>
  /** Whether the tool is offered with these deps (listed and callable); always when absent. */
  offered?(deps: ToolDeps): boolean
}

function tool<S extends TObject>(
  name: string,
  description: string,
  inputSchema: S,
  call: (deps: ToolDeps, input: Static<S>) => Promise<unknown>,
): Tool {
  return { name, description, inputSchema, call: (deps, input) => call(deps, input as Static<S>) }
}

/** Tool arguments: the given fields and nothing else (unknown fields are an error). */
function args<P extends TProperties>(properties: P) {
  return Type.Object(properties, { additionalProperties: false })
}

const NoArgs = args({})
const IdArg = args({ id: Id })

/** A body schema plus the `id` of the resource in the path. */
function withId<P extends TProperties>(body: TObject<P>) {
  return args({ id: Id, ...body.properties })
}

/** A query schema as strict tool arguments. */
function query<P extends TProperties>(schema: TObject<P>) {
  return args(schema.properties)
}

/**
 * A settings tool (CONTRACT 10): offered where the transport hands over the
 * running service's settings, that is over HTTP (admin tier), not over stdio.
 */
function settingsTool<S extends TObject>(
  name: string,
  description: string,
  inputSchema: S,
  call: (settings: Settings, input: Static<S>) => Promise<unknown>,
): Tool {
  return {
    ...tool(name, description, inputSchema, ({ settings }, input) => call(settings!, input)),
    offered: (deps) => deps.settings !== undefined,
  }
}

/**
 * A plugin tool (CONTRACT 9): plugins run in the serving process, so these are
 * offered over HTTP (admin tier), not over stdio.
 */
function pluginTool<S extends TObject>(
  name: string,
  description: string,
  inputSchema: S,
  call: (plugins: PluginService, input: Static<S>) => Promise<unknown>,
): Tool {
  return {
    ...tool(name, description, inputSchema, ({ plugins }, input) => call(plugins!, input)),
    offered: (deps) => deps.plugins !== undefined,
  }
}

/** What a DELETE route (204, no body) answers over MCP (docs/decisions.md). */
function deleted(id: string) {
  return { deleted: true, id }
}

export const TOOLS: readonly Tool[] = [
  tool(
    'list_sources',
    'List every data source (active and inactive) with its connection state, credential kind, settings, last sync run and errors. Same as GET /api/v1/sources.',
    NoArgs,
    ({ ctx, sync }) => listSources(ctx, sync.engine),
  ),
  tool(
    'sync_source',
    'Start a sync of one source by type (e.g. "csv"); returns {run_id} at once while the run continues. Unknown source: 404; not configured: 409. Same as POST /api/v1/sources/{type}/sync.',
    args({ type: SourceType }),
    ({ sync }, input) => sync.startRun(input.type),
  ),
  tool(
    'trigger_sync',
    'Start a sync of every configured source; returns {run_id} at once (a trigger during a run joins that run). Same as POST /api/v1/sync.',
    NoArgs,
    ({ sync }) => sync.startRun(null),
  ),
  tool(
    'list_accounts',
    'List accounts, optionally of one organization (org_id), paged with limit (default 100, max 1000) and offset. Returns {accounts, total, limit, offset}. Same as GET /api/v1/accounts.',
    query(AccountListQuery),
    ({ ctx }, input) => listAccounts(ctx, input),
  ),
  tool(
    'get_account',
    'Get one account by id. Same as GET /api/v1/accounts/{id}.',
    IdArg,
    ({ ctx }, input) => getAccount(ctx, input.id),
  ),
  tool(
    'create_account',
    'Create a manual account with a name, a currency code and an optional static balance (an exact decimal string, never a number). Same as POST /api/v1/accounts.',
    CreateAccountBody,
    ({ ctx }, input) => createAccount(ctx, input),
  ),
  tool(
    'update_account',
    'Edit a manual account: only the fields given change. Synced accounts answer 409. Same as PUT /api/v1/accounts/{id}.',
    withId(UpdateAccountBody),
    ({ ctx }, { id, ...body }) => updateAccount(ctx, id, body),
  ),
  tool(
    'delete_account',
    'Delete a manual account and its transactions; returns {deleted: true, id}. Synced accounts answer 409. Same as DELETE /api/v1/accounts/{id}.',
    IdArg,
    async ({ ctx }, input) => {
      await deleteAccount(ctx, input.id)
      return deleted(input.id)
    },
  ),
  tool(
    'list_transactions',
    'List transactions newest first (order: "desc", the default) or oldest first (order: "asc"), filtered by label (label_key, label_value) and date range (since, until: YYYY-MM-DD, RFC 3339 or unix seconds, inclusive), paged with limit and cursor (pass the next_cursor of the previous page; null means the last page) or offset. Returns {transactions, total, limit, offset, next_cursor}. Same as GET /api/v1/transactions.',
    query(TransactionListQuery),
    ({ ctx }, input) => listTransactions(ctx, input),
  ),
  tool(
    'search_transactions',
    'Search transactions with the query language of docs/search.md (q: free text, field:value filters such as amount:<-100, date:2024-02, label:category=food, ext:tax.deductible=true, AND/OR/NOT, parentheses), plus since, until, label_key, label_value, limit, and cursor (the next_cursor of the previous page; null means the last page) or offset. Returns {query, total, total_is_lower_bound, transactions, next_cursor}, newest first, or oldest first with order: "asc" (total_is_lower_bound: true when counting stopped at its budget and total is only a lower bound). Same as GET /api/v1/transactions/search.',
    query(TransactionSearchQuery),
    ({ searches }, input) => searches.run(input),
  ),
  tool(
    'summarize_transactions',
    'Exact totals of transactions per period: count, sum, inflow (positive amounts) and outflow (negative amounts, money out) as exact decimal strings, one group per period (period: day, week (ISO, Monday first), month (default) or year), per currency, optionally split by account (group_by: "account") or by the value of one label (group_by: "label" with by_label: the label key; key null = transactions without that label). Filter with q (the search language of search_transactions, e.g. "label:category=groceries", "coffee", "amount:<0"), since and until (YYYY-MM-DD, inclusive), label_key and label_value. Example, "how much did I spend on groceries each month this year": {"period": "month", "q": "label:category=groceries amount:<0", "since": "2026-01-01"}; each group\'s outflow is that month\'s spending (negative) in its currency. Returns {query, period, group_by, by_label, groups: [{period, start, key, currency, count, sum, inflow, outflow}]} ordered by start, key, currency. Same as GET /api/v1/transactions/summary.',
    query(SummaryQuery),
    ({ searches }, input) => searches.summarize(input),
  ),
  tool(
    'get_transaction',
    'Get one transaction by id, with its labels and extensions. Same as GET /api/v1/transactions/{id}.',
    IdArg,
    ({ ctx }, input) => getTransaction(ctx, input.id),
  ),
  tool(
    'create_transaction',
    'Create a manual transaction in an account: amount is an exact decimal string (negative = money out), date is YYYY-MM-DD, RFC 3339 or unix seconds. Same as POST /api/v1/transactions.',
    CreateTransactionBody,
    ({ ctx }, input) => createTransaction(ctx, input),
  ),
  tool(
    'update_transaction',
    'Edit a manual transaction: only the fields given change; null clears description, payee or memo. Synced transactions answer 409. Same as PUT /api/v1/transactions/{id}.',
    withId(UpdateTransactionBody),
    ({ ctx }, { id, ...body }) => updateTransaction(ctx, id, body),
  ),
  tool(
    'delete_transaction',
    'Delete a manual transaction; returns {deleted: true, id}. Synced transactions answer 409. Same as DELETE /api/v1/transactions/{id}.',
    IdArg,
    async ({ ctx }, input) => {
      await deleteTransaction(ctx, input.id)
      return deleted(input.id)
    },
  ),
  tool(
    'get_transaction_history',
    'The version history of a transaction: every change with what changed and where it came from. Same as GET /api/v1/transactions/{id}/history.',
    IdArg,
    ({ ctx }, input) => getHistory(ctx.db.kysely, input.id),
  ),
  tool(
    'get_transaction_provenance',
    'Where a transaction came from: its source, sync runs and lineage. Same as GET /api/v1/transactions/{id}/provenance.',
    IdArg,
    ({ ctx }, input) => getProvenance(ctx, input.id),
  ),
  tool(
    'get_transaction_relationships',
    'The outbound and derived inbound relationship edges of a transaction. Same as GET /api/v1/transactions/{id}/relationships.',
    IdArg,
    ({ ctx }, input) => getRelationships(ctx, input.id),
  ),
  tool(
    'list_labels',
    'The label vocabulary: every key:value pair with the number of transactions carrying it. Same as GET /api/v1/labels.',
    NoArgs,
    ({ ctx }) => listLabels(ctx),
  ),
  tool(
    'set_transaction_labels',
    "Replace a transaction's labels with the given {key: value} map (also on synced transactions). Same as PUT /api/v1/transactions/{id}/labels.",
    withId(LabelsBody),
    ({ ctx }, input) => setTransactionLabels(ctx, input.id, input.labels),
  ),
  tool(
    'set_transaction_extensions',
    "Replace a transaction's extensions with the given object of namespaced keys to structured JSON values (also on synced transactions). Same as PUT /api/v1/transactions/{id}/extensions.",
    withId(ExtensionsBody),
    ({ ctx }, input) => setTransactionExtensions(ctx, input.id, input.extensions),
  ),
  tool(
    'list_extensions',
    'The extension key vocabulary: every namespace and key with the number of transactions carrying it (a JSON array, as text content only). Same as GET /api/v1/extensions.',
    NoArgs,
    ({ ctx }) => listExtensionKeys(ctx),
  ),
  tool(
    'list_events',
    'Page through the durable event log oldest first: events after a sequence (after, limit), or the newest N (newest), filtered by type, entity_type and entity_id. Returns {events, next}; pass next as after to continue. Same as GET /api/v1/events.',
    query(EventListQuery),
    ({ ctx }, input) => listEvents(ctx, input),
  ),
  tool(
    'list_rules',
    'List rules oldest first (the order they apply in; a later rule wins a key two rules set), paged with limit and offset. Returns {rules, total, limit, offset}. Same as GET /api/v1/rules.',
    query(RuleListQuery),
    ({ ctx }, input) => listRules(ctx, input),
  ),
  tool('get_rule', 'Get one rule by id. Same as GET /api/v1/rules/{id}.', IdArg, ({ ctx }, input) =>
    getRule(ctx, input.id),
  ),
  tool(
    'create_rule',
    'Create a rule: a search query (the language of GET /api/v1/transactions/search, e.g. "payee:starbucks") and the labels and/or extensions it sets on matching transactions. It applies to new transactions from now on; run_rules applies it to existing ones. Same as POST /api/v1/rules.',
    RuleBody,
    ({ ctx }, input) => createRule(ctx, input),
  ),
  tool(
    'update_rule',
    'Replace a rule (name, query, labels, extensions, enabled; omitted labels, extensions and enabled take their defaults). Changes no transaction by itself. Same as PUT /api/v1/rules/{id}.',
    withId(RuleBody),
    ({ ctx }, { id, ...body }) => replaceRule(ctx, id, body),
  ),
  tool(
    'delete_rule',
    'Delete a rule; the labels and extensions it already set stay. Returns {deleted: true, id}. Same as DELETE /api/v1/rules/{id}.',
    IdArg,
    async ({ ctx }, input) => {
      await deleteRule(ctx, input.id)
      return deleted(input.id)
    },
  ),
  tool(
    'run_rules',
    'Apply rules to existing transactions: with id, that one rule (even if disabled; POST /api/v1/rules/{id}/run); without, every enabled rule oldest first (POST /api/v1/rules/run). Returns {matched, updated}.',
    args({ id: Type.Optional(Id) }),
    ({ ctx }, input) => (input.id === undefined ? runAllRules(ctx) : runRule(ctx, input.id)),
  ),
  tool(
    'unapply_rule',
    "Remove a rule's labels and extensions from the transactions its query matches now, where they still hold the rule's values. Returns {matched, removed}. Same as POST /api/v1/rules/{id}/unapply.",
    IdArg,
    ({ ctx }, input) => unapplyRule(ctx, input.id),
  ),
  tool(
    'preview_rule',
    'What a rule would do, writing nothing: {matched, would_update, transactions} with the first 20 transactions that would change. Same as POST /api/v1/rules/preview.',
    PreviewBody,
    ({ ctx }, input) => previewRule(ctx, input),
  ),
  tool(
    'list_webhooks',
    'List webhooks with their delivery health (never their secrets). Same as GET /api/v1/webhooks.',
    NoArgs,
    ({ ctx }) => listWebhooks(ctx),
  ),
  tool(
    'create_webhook',
    'Register a webhook for a URL and event types ([] or ["*"] = all); the signing secret is returned this once. Same as POST /api/v1/webhooks.',
    CreateWebhookBody,
    ({ ctx }, input) => createWebhook(ctx, input),
  ),
  tool(
    'update_webhook',
    'Change a webhook’s url, event_types or enabled; omitted fields keep their value. Same as PUT /api/v1/webhooks/{id}.',
    withId(UpdateWebhookBody),
    ({ ctx }, { id, ...body }) => updateWebhook(ctx, id, body),
  ),
  tool(
    'delete_webhook',
    'Delete a webhook; returns {deleted: true, id}. Same as DELETE /api/v1/webhooks/{id}.',
    IdArg,
    async ({ ctx }, input) => {
      await deleteWebhook(ctx, input.id)
      return deleted(input.id)
    },
  ),
  tool(
    'test_webhook',
    'Send a signed webhook.test delivery now and report {delivered, status, duration_ms, error?}; succeeds whether or not the receiver accepted it. Same as POST /api/v1/webhooks/{id}/test.',
    IdArg,
    ({ ctx }, input) => sendTestDelivery(ctx, input.id),
  ),
  tool(
    'list_api_keys',
    'List API keys: id, name, prefix, scope, created_at, last_used_at (never the keys). Same as GET /api/v1/security/api-keys.',
    NoArgs,
    ({ ctx }) => listApiKeys(ctx),
  ),
  tool(
    'create_api_key',
    'Mint an API key with a name and a scope ("read" or "read_write"); the full key is returned this once. Same as POST /api/v1/security/api-keys.',
    CreateApiKeyBody,
    ({ ctx }, input) => createApiKey(ctx, input),
  ),
  tool(
    'revoke_api_key',
    'Revoke an API key by id; returns {deleted: true, id}. Same as DELETE /api/v1/security/api-keys/{id}.',
    IdArg,
    async ({ ctx }, input) => {
      await revokeApiKey(ctx, input.id)
      return deleted(input.id)
    },
  ),
  settingsTool(
    'list_settings',
    "List the editable settings: {restart_required, settings: [{key, title, kind, enum?, value, default, origin, secret, set?, restart_required}]}; a secret's value is null. Same as GET /api/v1/settings.",
    NoArgs,
    (settings) => settings.list(),
  ),
  settingsTool(
    'set_setting',
    'Store a setting {key, value} (value with its JSON kind: an int as a number, a duration as "10s"); validated like the config file. Returns {setting, restart_required}. Unknown key: 404; bad value: 400. Same as PUT /api/v1/settings/{key}.',
    args({ key: SettingKey, ...SetSettingBody.properties }),
    (settings, input) => settings.set(input.key, input.value),
  ),
  settingsTool(
    'reset_setting',
    'Remove a stored setting by key, so the file, environment or default applies (a live key at once, another after a restart). Returns {setting, restart_required}. Same as DELETE /api/v1/settings/{key}.',
    args({ key: SettingKey }),
    (settings, input) => settings.reset(input.key),
  ),
  pluginTool(
    'list_plugins',
    'List plugins found in plugins.dir: {enabled, plugins: [{id, name, version, description, author, runtime, enabled, state, hooks, capabilities, net_grants, last_status, last_error, last_run_at, last_success_at}]}. Same as GET /api/v1/plugins.',
    NoArgs,
    (plugins) => plugins.manager.list(),
  ),
  pluginTool(
    'get_plugin',
    'One plugin by id (its name). Same as GET /api/v1/plugins/{id}.',
    args(PluginParams.properties),
    (plugins, input) => plugins.manager.get(input.id),
  ),
  pluginTool(
    'enable_plugin',
    'Enable a plugin {id, net_grants?}: net_grants are hosts it may reach although private or over plain http. Returns the plugin. Same as POST /api/v1/plugins/{id}/enable.',
    args({ ...PluginParams.properties, ...EnableBody.properties }),
    (plugins, input) => plugins.manager.enable(input.id, input.net_grants ?? []),
  ),
  pluginTool(
    'disable_plugin',
    'Disable a plugin {id}; its cursor stays, so enabling it again catches up. Same as POST /api/v1/plugins/{id}/disable.',
    args(PluginParams.properties),
    (plugins, input) => plugins.manager.disable(input.id),
  ),
  pluginTool(
    'reload_plugin',
    'Read a plugin folder again and restart its sandbox {id}. Same as POST /api/v1/plugins/{id}/reload.',
    args(PluginParams.properties),
    (plugins, input) => plugins.manager.reload(input.id),
  ),
  pluginTool(
    'uninstall_plugin',
    'Uninstall a plugin {id}: runs onUninstall (bounded), removes its files and stored state. Same as DELETE /api/v1/plugins/{id}.',
    args(PluginParams.properties),
    async (plugins, input) => {
      await plugins.manager.uninstall(input.id)
      return deleted(input.id)
    },
  ),
  pluginTool(
    'browse_plugin_registry',
    'The marketplace index (plugins.registry_url): {available, plugins: [{name, version, description, author, capabilities, installed, installed_version, update_available}]}. Same as GET /api/v1/plugins/registry.',
    NoArgs,
    (plugins) => plugins.registry(),
  ),
  pluginTool(
    'install_plugin',
    'Install or update a plugin from the marketplace {name}; each file is checked (size, SHA-256) before anything is written. A new plugin starts disabled; an update keeps its state and reloads. Same as POST /api/v1/plugins/registry/{name}/install.',
    args(PageParams.properties),
    async (plugins, input) => (await plugins.install(input.name)).plugin,
  ),
  pluginTool(
    'render_plugin_page',
    'Render a plugin page {name, params?}: runs its onPageRender and returns {name, page: {title, blocks}}. Same as GET /api/v1/plugins/pages/{name}.',
    args({
      ...PageParams.properties,
      params: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 1000 }))),
    }),
    (plugins, input) => plugins.manager.renderPage(input.name, input.params ?? {}),
  ),
]
