// Plugins (CONTRACT 9, SPEC 4.2–4.4): each route's schema, and the page block
// vocabulary that plugins/pages.ts checks every rendered page against. The same
// shapes serve REST and the MCP plugin tools.
import Type, { type Static } from 'typebox'
import { AnyJson, ErrorResponses, Problem } from './common.js'

const tags = ['plugins']
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()])

export const Plugin = Type.Object({
  id: Type.String({ description: 'The plugin name (its folder in plugins.dir).' }),
  name: Type.String(),
  version: Type.String({ description: 'From plugin.toml; empty while it cannot be read.' }),
  description: Type.String(),
  author: Type.String(),
  runtime: Type.Literal('js'),
  enabled: Type.Boolean(),
  state: Type.Union(
    [
      Type.Literal('loaded'),
      Type.Literal('disabled'),
      Type.Literal('error'),
      Type.Literal('missing'),
    ],
    {
      description:
        'loaded: enabled and running; disabled; error: its manifest or code failed (last_error says why); missing: enabled but its folder is gone.',
    },
  ),
  hooks: Type.Array(Type.String()),
  capabilities: Type.Array(Type.String()),
  net_grants: Type.Array(Type.String(), {
    description: 'Hosts the operator granted at enable (private addresses and plain http allowed).',
  }),
  last_status: Nullable(
    Type.Union([
      Type.Literal('ok'),
      Type.Literal('error'),
      Type.Literal('timeout'),
      Type.Literal('memory'),
    ]),
  ),
  last_error: Nullable(Type.String()),
  last_run_at: Nullable(Type.String()),
  last_success_at: Nullable(Type.String()),
})
export type PluginJson = Static<typeof Plugin>

export const PluginList = Type.Object({
  enabled: Type.Boolean({ description: 'plugins.enabled: false means no plugin runs.' }),
  plugins: Type.Array(Plugin),
})

export const PluginParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
})

export const EnableBody = Type.Object(
  {
    net_grants: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 32 }),
    ),
  },
  { additionalProperties: false },
)

const Text = Type.String({ maxLength: 10_000 })
const Label = Type.String({ maxLength: 500 })

export const PageBlock = Type.Union([
  Type.Object({ type: Type.Literal('heading'), text: Text }),
  Type.Object({ type: Type.Literal('text'), text: Text }),
  Type.Object({
    type: Type.Literal('stat'),
    label: Label,
    value: Label,
    hint: Type.Optional(Label),
  }),
  Type.Object({
    type: Type.Literal('keyvalue'),
    items: Type.Array(Type.Object({ key: Label, value: Text }), { maxItems: 500 }),
  }),
  Type.Object({
    type: Type.Literal('table'),
    columns: Type.Array(Label, { maxItems: 50 }),
    rows: Type.Array(Type.Array(Text, { maxItems: 50 }), { maxItems: 1000 }),
  }),
  Type.Object({
    type: Type.Literal('actions'),
    actions: Type.Array(
      Type.Object({
        id: Type.String({ minLength: 1, maxLength: 100 }),
        label: Label,
        style: Type.Optional(
          Type.Union([Type.Literal('primary'), Type.Literal('secondary'), Type.Literal('danger')]),
        ),
        params: Type.Optional(Type.Record(Type.String(), AnyJson)),
      }),
      { maxItems: 50 },
    ),
  }),
  Type.Object({
    type: Type.Literal('form'),
    id: Type.String({ minLength: 1, maxLength: 100 }),
    fields: Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100 }),
        label: Label,
        kind: Type.Union([
          Type.Literal('text'),
          Type.Literal('number'),
          Type.Literal('toggle'),
          Type.Literal('select'),
        ]),
        value: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
        options: Type.Optional(Type.Array(Label, { maxItems: 200 })),
      }),
      { maxItems: 50 },
    ),
    submit_label: Type.Optional(Label),
  }),
  Type.Object({ type: Type.Literal('divider') }),
])

export const PluginPage = Type.Object({
  title: Label,
  blocks: Type.Array(PageBlock, { maxItems: 200 }),
})

export const RenderedPage = Type.Object({ name: Type.String(), page: PluginPage })
export type RenderedPageJson = Static<typeof RenderedPage>

export const PageList = Type.Object({
  pages: Type.Array(
    Type.Object({
      name: Type.String({ description: 'The page name: its plugin name.' }),
      plugin: Type.String(),
      title: Type.String(),
      icon: Nullable(Type.String()),
    }),
  ),
})

export const PageParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) })

export const PageQuery = Type.Object(
  {},
  {
    additionalProperties: Type.String({ maxLength: 1000 }),
    description: 'Passed to onPageRender as `params`.',
  },
)

export const ActionBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    params: Type.Optional(Type.Record(Type.String(), AnyJson)),
  },
  { additionalProperties: false },
)

export const EgressAttempt = Type.Object({
  at: Type.String(),
  method: Type.String(),
  url: Type.String({ description: 'Without its query string.' }),
  host: Type.String(),
  outcome: Type.Union([Type.Literal('ok'), Type.Literal('denied'), Type.Literal('failed')]),
  status: Type.Optional(Type.Integer()),
  reason: Type.Optional(Type.String()),
  bytes: Type.Optional(Type.Integer()),
  duration_ms: Type.Number(),
})

export const RegistryPlugin = Type.Object({
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  author: Type.String(),
  capabilities: Type.Array(Type.String()),
  installed: Type.Boolean(),
  installed_version: Nullable(Type.String()),
  update_available: Type.Boolean(),
})

export const RegistryList = Type.Object({
  available: Type.Boolean({ description: 'True when the index was read.' }),
  plugins: Type.Array(RegistryPlugin),
})

export const PluginRoutes = {
  list: {
    tags,
    summary: 'Plugins found in plugins.dir, with state and health (the folder is scanned again)',
    response: { 200: PluginList, ...ErrorResponses },
  },
  get: {
    tags,
    summary: 'One plugin',
    params: PluginParams,
    response: { 200: Plugin, ...ErrorResponses },
  },
  enable: {
    tags,
    summary: 'Enable a plugin, optionally granting hosts (private addresses, plain http)',
    params: PluginParams,
    body: EnableBody,
    response: { 200: Plugin, ...ErrorResponses },
  },
  disable: {
    tags,
    summary: 'Disable a plugin: its hooks stop; its cursor stays, so enabling catches up',
    params: PluginParams,
    response: { 200: Plugin, ...ErrorResponses },
  },
  reload: {
    tags,
    summary: 'Read the plugin folder again and restart its sandbox',
    params: PluginParams,
    response: { 200: Plugin, ...ErrorResponses },
  },
  uninstall: {
    tags,
    summary: 'Run onUninstall (bounded by plugins.hook_timeout), remove the files and the row',
    params: PluginParams,
    response: { 204: Type.Null(), ...ErrorResponses },
  },
  egress: {
    tags,
    summary: "A plugin's recent network attempts, newest first",
    params: PluginParams,
    response: { 200: Type.Object({ attempts: Type.Array(EgressAttempt) }), ...ErrorResponses },
  },
  pages: {
    tags,
    summary: 'Pages of enabled plugins with the ui:page capability',
    response: { 200: PageList, ...ErrorResponses },
  },
  renderPage: {
    tags,
    summary: "Render a plugin page (runs the plugin's onPageRender)",
    params: PageParams,
    querystring: PageQuery,
    response: { 200: RenderedPage, ...ErrorResponses, 502: Problem },
  },
  pageAction: {
    tags,
    summary: "Run a page action (the plugin's onPageAction); answers the page to show next",
    params: PageParams,
    body: ActionBody,
    response: { 200: RenderedPage, ...ErrorResponses, 502: Problem },
  },
  registry: {
    tags,
    summary: 'The marketplace index (plugins.registry_url) with what is installed',
    response: { 200: RegistryList, ...ErrorResponses, 502: Problem },
  },
  install: {
    tags,
    summary:
      'Install (201, disabled) or update (200, keeps its enabled state) a plugin from the marketplace',
    params: PageParams,
    response: { 200: Plugin, 201: Plugin, ...ErrorResponses, 422: Problem, 502: Problem },
  },
}
