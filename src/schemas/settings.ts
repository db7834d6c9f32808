// Settings and restart (CONTRACT 10, SPEC 4.2, 4.4): each route's schema. The
// same shapes serve REST and the MCP tools list_settings, set_setting, reset_setting.
import Type, { type Static } from 'typebox'
import { AnyJson, ErrorResponses } from './common.js'

export const SettingKind = Type.Union([
  Type.Literal('bool'),
  Type.Literal('int'),
  Type.Literal('string'),
  Type.Literal('duration'),
  Type.Literal('enum'),
  Type.Literal('json'),
])

export const Setting = Type.Object({
  key: Type.String({ description: 'Dotted configuration key, e.g. log.level.' }),
  title: Type.String(),
  kind: SettingKind,
  enum: Type.Optional(Type.Array(Type.String(), { description: 'Allowed values of an enum.' })),
  value: Type.Unknown({
    description:
      'The value that applies (a stored one included, even while it waits for a restart); null for a secret.',
  }),
  default: Type.Unknown({ description: 'The built-in default; null for a secret.' }),
  origin: Type.Union(
    [Type.Literal('default'), Type.Literal('file'), Type.Literal('env'), Type.Literal('stored')],
    {
      description: 'Where the value comes from: default < file < env < stored.',
    },
  ),
  secret: Type.Boolean(),
  set: Type.Optional(Type.Boolean({ description: 'Secrets only: whether a value is set.' })),
  restart_required: Type.Boolean({
    description: 'True while a stored value (or its removal) waits for a restart.',
  }),
})
export type SettingJson = Static<typeof Setting>

export const SettingsList = Type.Object({
  restart_required: Type.Boolean({ description: 'True while any setting waits for a restart.' }),
  settings: Type.Array(Setting),
})
export type SettingsListJson = Static<typeof SettingsList>

export const SettingChange = Type.Object({
  setting: Setting,
  restart_required: Type.Boolean({ description: 'True while any setting waits for a restart.' }),
})
export type SettingChangeJson = Static<typeof SettingChange>

export const SettingKey = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Dotted configuration key, e.g. webhooks.max_attempts.',
})

export const SettingParams = Type.Object({ key: SettingKey })

export const SetSettingBody = Type.Object(
  {
    value: AnyJson,
  },
  {
    additionalProperties: false,
    description: 'The value with its JSON kind: an int as an integer, a duration as "10s".',
  },
)

const tags = ['settings']

export const SettingRoutes = {
  list: {
    tags,
    summary: 'Editable settings with value, origin and pending-restart flag; secrets never echoed',
    response: { 200: SettingsList, ...ErrorResponses },
  },
  set: {
    tags,
    summary: 'Store a setting: validated like the config file; 404 unknown key, 400 bad value',
    params: SettingParams,
    body: SetSettingBody,
    response: { 200: SettingChange, ...ErrorResponses },
  },
  reset: {
    tags,
    summary: 'Remove a stored setting: file, env or default applies (a live key at once)',
    params: SettingParams,
    response: { 200: SettingChange, ...ErrorResponses },
  },
  restart: {
    tags,
    summary:
      'Drain (at most 10 s) and start again with the same arguments, environment and address',
    response: {
      202: Type.Object({ restarting: Type.Literal(true) }),
      ...ErrorResponses,
    },
  },
}
