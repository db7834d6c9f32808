// Handlers of /api/v1/plugins (CONTRACT 9, SPEC 4.2–4.4). Lifecycle changes are
// management actions: they emit no events (SPEC 6.1.5); what plugins write does.
import { Unavailable } from '../../errors.js'
import { PluginRoutes as S } from '../../schemas/plugins.js'
import type { Handler } from '../route.js'

export const list: Handler<typeof S.list> = ({ plugins }) => plugins.manager.list()

export const get: Handler<typeof S.get> = ({ plugins }, req) => plugins.manager.get(req.params.id)

/** POST /plugins/{id}/enable takes no body at all as `{}` (no grants). */
export async function bodyOptional(request: { body: unknown }): Promise<void> {
  request.body ??= {}
}

export const enable: Handler<typeof S.enable> = ({ plugins }, req) =>
  plugins.manager.enable(req.params.id, req.body.net_grants ?? [])

export const disable: Handler<typeof S.disable> = ({ plugins }, req) =>
  plugins.manager.disable(req.params.id)

export const reload: Handler<typeof S.reload> = ({ plugins }, req) =>
  plugins.manager.reload(req.params.id)

export const uninstall: Handler<typeof S.uninstall> = async ({ plugins }, req, reply) => {
  await plugins.manager.uninstall(req.params.id)
  return reply.code(204).send(null)
}

export const egress: Handler<typeof S.egress> = async ({ plugins }, req) => {
  await plugins.manager.get(req.params.id)
  return { attempts: plugins.egress.attempts(req.params.id) }
}

export const pages: Handler<typeof S.pages> = async ({ plugins }) => ({
  pages: await plugins.manager.pages(),
})

export const renderPage: Handler<typeof S.renderPage> = ({ plugins }, req) =>
  plugins.manager.renderPage(req.params.name, { ...req.query })

// Write tier, but like rendering it runs plugin code: 503 while no dashboard token is set (SPEC 5.2).
export const pageAction: Handler<typeof S.pageAction> = ({ plugins, auth }, req) => {
  if (!auth.dashboard.configured)
    throw new Unavailable(
      'plugin page actions need a dashboard token; set dashboard.token or create one with POST /api/v1/security/token',
    )
  return plugins.manager.pageAction(req.params.name, req.body.id, req.body.params ?? {})
}

export const registry: Handler<typeof S.registry> = ({ plugins }) => plugins.registry()

export const install: Handler<typeof S.install> = async ({ plugins }, req, reply) => {
  const { created, plugin } = await plugins.install(req.params.name)
  return reply.code(created ? 201 : 200).send(plugin)
}
