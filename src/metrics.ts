// One Prometheus registry for the process; metric names follow SPEC (`service_*`).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export interface Metrics {
  registry: Registry
  httpRequests: Counter<'method' | 'route' | 'status'>
  httpDuration: Histogram<'method' | 'route'>
  eventsDropped: Counter
  eventsPublished: Counter
  syncRuns: Counter<'status'>
  syncRows: Counter<'source' | 'outcome'>
  webhookDeliveries: Counter<'outcome'>
  webhookAttempts: Counter
  webhookDropped: Counter
  pluginHookRuns: Counter<'plugin' | 'status'>
  pluginEgress: Counter<'plugin' | 'outcome'>
  pluginLag: Gauge<'plugin'>
  /** Set by the plugin service while this process runs hooks (plugins/index.ts); read at each scrape. */
  readPluginLag: { current: PluginLagReader | null }
  authFailures: Counter
  authRateLimited: Counter
  sseStreams: Gauge
  sseRefused: Counter<'limit'>
  searchQueued: Gauge
}

/** Each running plugin's events not yet handled, by plugin name. */
export type PluginLagReader = () => Promise<ReadonlyMap<string, number>>

export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'service_' })
  const readPluginLag: Metrics['readPluginLag'] = { current: null }
  return {
    registry,
    httpRequests: new Counter({
      name: 'service_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'service_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    eventsDropped: new Counter({
      name: 'service_events_dropped_total',
      help: 'Event bus subscribers dropped for falling a full buffer behind.',
      registers: [registry],
    }),
    eventsPublished: new Counter({
      name: 'service_events_published_total',
      help: 'Committed events published to the in-memory bus.',
      registers: [registry],
    }),
    syncRuns: new Counter({
      name: 'service_sync_runs_total',
      help: 'Finished sync runs, by final status.',
      labelNames: ['status'],
      registers: [registry],
    }),
    syncRows: new Counter({
      name: 'service_sync_rows_total',
      help: 'Rows seen by sync, by source and outcome (inserted, updated, unchanged, skipped).',
      labelNames: ['source', 'outcome'],
      registers: [registry],
    }),
    // SPEC 6.3. outcome: delivered (a 2xx) or failed (every attempt used up).
    webhookDeliveries: new Counter({
      name: 'service_webhook_deliveries_total',
      help: 'Webhook deliveries finished, by outcome (delivered, failed).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'service_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts (HTTP requests sent).',
      registers: [registry],
    }),
    webhookDropped: new Counter({
      name: 'service_webhook_deliveries_dropped_total',
      help: 'Webhook jobs dropped because the delivery queue was full.',
      registers: [registry],
    }),
    // CONTRACT 9: every hook run and every network attempt of a plugin is counted.
    pluginHookRuns: new Counter({
      name: 'service_plugin_hook_runs_total',
      help: 'Plugin hook runs, by plugin and outcome (ok, error, timeout, memory).',
      labelNames: ['plugin', 'status'],
      registers: [registry],
    }),
    pluginEgress: new Counter({
      name: 'service_plugin_egress_total',
      help: 'Plugin network attempts, by plugin and outcome (ok, denied, failed).',
      labelNames: ['plugin', 'outcome'],
      registers: [registry],
    }),
    // How far behind each plugin's hooks are (a plugin catching up with an import).
    pluginLag: new Gauge({
      name: 'service_plugin_lag_events',
      help: "Events in the log after a running plugin's cursor: written, not yet handled by its hooks.",
      labelNames: ['plugin'],
      registers: [registry],
      async collect() {
        this.reset()
        for (const [plugin, lag] of (await readPluginLag.current?.()) ?? [])
          this.set({ plugin }, lag)
      },
    }),
    readPluginLag,
    // docs/security.md: brute force and SSE exhaustion.
    authFailures: new Counter({
      name: 'service_auth_failures_total',
      help: 'Requests whose credential matched neither the dashboard token nor an API key.',
      registers: [registry],
    }),
    authRateLimited: new Counter({
      name: 'service_auth_rate_limited_total',
      help: 'Requests refused (429) because their address failed authentication too often.',
      registers: [registry],
    }),
    sseStreams: new Gauge({
      name: 'service_sse_streams',
      help: 'Open event streams (GET /api/v1/events/stream).',
      registers: [registry],
    }),
    sseRefused: new Counter({
      name: 'service_sse_streams_refused_total',
      help: 'Event streams refused (429), by the cap reached (total, per_client).',
      labelNames: ['limit'],
      registers: [registry],
    }),
    searchQueued: new Gauge({
      name: 'service_search_queued',
      help: 'Searches waiting for a free search worker (search.workers).',
      registers: [registry],
    }),
  }
}
