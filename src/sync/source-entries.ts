// GET /sources and the credential routes (SPEC 2.9, 4.4; CONTRACT 6 "Source entry"):
// every registered source, active or not, with its readiness, credential shape,
// editable config (secrets redacted), its last run and that run's errors.
import type { ServiceContext } from '../context.js'
import { Invalid, NotFound } from '../errors.js'
import type { SourceEntry, SourceList } from '../schemas/sources.js'
import { isStarted, type Source } from '../sources/source.js'
import type { SyncEngine } from './engine.js'
import { lastRunOf } from './runs.js'

export async function sourceEntry(
  ctx: ServiceContext,
  engine: SyncEngine,
  source: Source,
): Promise<SourceEntry> {
  const active = await isStarted(source, engine.sourceContext)
  const state = await source.state(engine.sourceContext)
  const last = await lastRunOf(ctx.db.kysely, source.type)
  const covered = last !== null && source.type in last.run.counts
  const errors: string[] = []
  if (covered) {
    const failure = last.sourceErrors[source.type]
    if (failure !== undefined) errors.push(failure)
    // Warnings of this source (a bad file, a skipped folder) are its errors to fix.
    const prefix = `${source.type}: `
    for (const warning of last.run.warnings) {
      if (warning.startsWith(prefix)) errors.push(warning.slice(prefix.length))
    }
  }
  return {
    type: source.type,
    title: source.title,
    active,
    connected: active && state.connected,
    credential: state.credential,
    config: state.config,
    last_run: covered ? last.run : null,
    errors,
  }
}

export async function listSources(ctx: ServiceContext, engine: SyncEngine): Promise<SourceList> {
  const sources = await Promise.all(engine.sources.map((s) => sourceEntry(ctx, engine, s)))
  return {
    enabled: sources.filter((s) => s.active).map((s) => s.type),
    // Folder profiles and source keys come from the configuration file, read at
    // start; nothing here changes them live, so nothing waits for a restart.
    restart_required: false,
    sources,
  }
}

export async function setSourceCredential(
  ctx: ServiceContext,
  engine: SyncEngine,
  type: string,
  body: { token: string },
): Promise<SourceEntry> {
  const source = engine.findSource(type)
  if (!source.setCredential) {
    throw Invalid.field('type', `source ${type} takes no credential`)
  }
  await source.setCredential(engine.sourceContext, body)
  return sourceEntry(ctx, engine, source)
}

export async function deleteSourceCredential(
  ctx: ServiceContext,
  engine: SyncEngine,
  type: string,
  id: string,
): Promise<SourceEntry> {
  const source = engine.findSource(type)
  if (!source.deleteCredential) {
    throw new NotFound(`source ${type} has no credential ${id}`)
  }
  await source.deleteCredential(engine.sourceContext, id)
  return sourceEntry(ctx, engine, source)
}
