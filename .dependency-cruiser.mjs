// The layer check (`npm run lint`): a module may import its own layer or a lower
// one, never a higher one, and no import cycle is allowed anywhere (type-only
// imports count for both). docs/architecture.md draws the same picture.
//
//   L7 the program: app.ts (composition root) and cli.ts (its entry, `coffer`)
//   L6 doors: http/, mcp/, the commands (sync/cli.ts, export/cli.ts, mcp/stdio.ts), supervisor/
//   L5 sync/ (but its cli.ts), sources/, webhooks/, auth/, update/, plugins/
//   L4 search/, rules/, export/ (but its cli.ts)
//   L3 ledger/, context.ts, secrets/, settings/
//   L2 events/
//   L1 db/
//   L0 foundation: config/, schemas/, errors.ts, log.ts, metrics.ts, clock.ts,
//      async-lock.ts, page.ts, signals.ts, worker-module.ts, response-body.ts
//
// One exception: db/schema.ts combines the table types that each folder declares
// in its tables.ts (DESIGN "Storage"), so it may type-import those files, and
// only those. Unit tests (*.test.ts) may reach up to build what they test.

/** Layers from the bottom up: a name for the messages, and the paths they hold. */
const LAYERS = [
  {
    name: 'L0 foundation (config/, schemas/, errors, log, metrics, clock, async-lock, page, signals, decimal, worker-module, response-body)',
    path: '^src/(config/|schemas/|(errors|log|metrics|clock|async-lock|page|signals|decimal|worker-module|response-body)\\.ts$)',
  },
  { name: 'L1 db/', path: '^src/db/' },
  { name: 'L2 events/', path: '^src/events/' },
  {
    name: 'L3 ledger/, context.ts, secrets/, settings/',
    path: '^src/(ledger/|secrets/|settings/|context\\.ts$)',
  },
  { name: 'L4 search/, rules/, export/', path: '^src/((search|rules)/|export/(?!cli\\.ts$))' },
  {
    name: 'L5 sync/, sources/, webhooks/, auth/, update/, plugins/',
    path: '^src/(sync/(?!cli\\.ts$)|sources/|webhooks/|auth/|update/|plugins/)',
  },
  {
    name: 'L6 doors (http/, mcp/, command modules, supervisor/)',
    path: '^src/(http/|mcp/|cli/|supervisor/|(sync|export)/cli\\.ts$)',
  },
  { name: 'L7 the program (app.ts, cli.ts)', path: '^src/(app|cli)\\.ts$' },
]

const TESTS = '\\.test\\.ts$'
const SCHEMA_COMBINER = '^src/db/schema\\.ts$'
const TABLE_TYPES = '^src/[^/]+/tables\\.ts$'

/** One rule for each pair (lower, higher): its name and message say which may not import which. */
const layerRules = LAYERS.flatMap((lower, i) =>
  LAYERS.slice(i + 1).map((higher) => ({
    name: `layer: ${lower.name.split(' ')[0]} -> ${higher.name.split(' ')[0]}`,
    comment: `${lower.name} may not import ${higher.name}: a lower layer never imports a higher one (.dependency-cruiser.mjs, docs/architecture.md)`,
    severity: 'error',
    from: { path: lower.path, pathNot: [TESTS, SCHEMA_COMBINER] },
    to: { path: higher.path },
  })),
)

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'layer: db/schema.ts',
      comment:
        'db/schema.ts may import (type-only) the tables.ts of each folder and the lower layers, nothing else above L1 db/',
      severity: 'error',
      from: { path: SCHEMA_COMBINER },
      to: { path: LAYERS.slice(2).map((l) => l.path), pathNot: TABLE_TYPES },
    },
    {
      name: 'layer: db/schema.ts imports tables as types',
      comment:
        'db/schema.ts combines table types: its imports of tables.ts files must be `import type`',
      severity: 'error',
      from: { path: SCHEMA_COMBINER },
      to: { path: TABLE_TYPES, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'layer: unplaced module',
      comment:
        'every module under src/ belongs to a layer: add its folder to LAYERS in .dependency-cruiser.mjs (and to docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.map((l) => l.path), TESTS] },
      to: {},
    },
    {
      name: 'web: only the schemas of the service',
      comment:
        'the dashboard (web/) shares the route schemas of src/schemas/ (and their limits) and the exact decimal arithmetic of src/decimal.ts (pure, L0) with the service, nothing else of src/: it talks to the service over HTTP',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: ['^src/schemas/', '^src/decimal\\.ts$'] },
    },
    {
      name: 'no-circular',
      comment: 'import cycles are not allowed, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import the checker cannot resolve would escape the layer rules',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|web/dist|node_modules)/' },
    // Type-only imports are dependencies too: a layer may not name a higher one's types.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
}
