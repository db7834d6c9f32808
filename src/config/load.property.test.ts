// Properties of the configuration loader (load.ts): any valid set of values, written
// as TOML or as SERVICE_* variables, loads as those values (normalized the documented
// way); and no file text and no value makes it throw anything but a ConfigError.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import fc from 'fast-check'
import { stringify } from 'smol-toml'
import { holds } from '../../test/helpers/property.js'
import { ConfigError, loadConfig, validateConfigValue } from './load.js'
import { CONFIG_KEYS, envName, splitKey, type ConfigKeySpec } from './schema.js'

const dir = mkdtempSync(join(tmpdir(), 'coffer-config-property-'))
after(() => rmSync(dir, { recursive: true, force: true }))
let files = 0

function writeToml(text: string): string {
  const path = join(dir, `config-${++files}.toml`)
  writeFileSync(path, text)
  return path
}

// Keys whose values other keys constrain (server.*, the driver and its dsn) or that
// have a structure of their own (csv.folders) are left to load.test.ts.
const CROSS_KEY = new Set([
  'server.addr',
  'server.base_url',
  'server.allowed_hosts',
  'server.allowed_origins',
  'database.driver',
  'csv.folders',
])
const SIMPLE_KEYS = CONFIG_KEYS.filter((spec) => !CROSS_KEY.has(spec.key))

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const

const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })

/** A valid value of a key as TOML carries it, and the value loading gives. */
function validValue(
  spec: ConfigKeySpec,
): fc.Arbitrary<{ toml: unknown; loaded: unknown; env: string }> {
  switch (spec.kind) {
    case 'bool':
      return fc.tuple(fc.boolean(), fc.constantFrom(0, 1, 2)).map(([b, form]) => ({
        toml: b,
        loaded: b,
        env: [b ? 'true' : 'false', b ? '1' : '0', b ? ' YES ' : ' No '][form]!,
      }))
    case 'int':
      return fc
        .integer({ min: spec.min ?? -1_000_000, max: spec.max ?? 2 ** 40 })
        .map((n) => ({ toml: n, loaded: n, env: ` ${n} ` }))
    case 'string':
      if (spec.fetched)
        return fc
          .tuple(fc.constantFrom('http', 'https'), fc.webPath())
          .map(([scheme, path]) => `${scheme}://feed.example${path}`)
          .map((s) => ({ toml: s, loaded: s, env: s }))
      // Blank is not empty: only "" means unset.
      return text.map((s) => ({ toml: s, loaded: s, env: s }))
    case 'duration':
      return (
        fc
          .tuple(
            fc.integer({ min: 1, max: 10_000 }),
            fc.constantFrom('ms', 's', 'm', 'h'),
            fc.option(fc.integer({ min: 1, max: 59 })),
          )
          // Within the key's bounds (server.request_timeout takes 1s or more, webhooks.timeout 10m at most).
          .filter(([n, unit, extra]) => {
            const ms = n * UNIT_MS[unit] + (extra ?? 0)
            return ms >= (spec.min ?? 0) && ms <= (spec.max ?? Infinity)
          })
          .map(([n, unit, extra]) => {
            const d = `${n}${unit}${extra === null ? '' : `${extra}ms`}`
            return { toml: d, loaded: d, env: d }
          })
      )
    case 'enum':
      return fc.constantFrom(...(spec.enum ?? [])).map((v) => ({ toml: v, loaded: v, env: v }))
    case 'string_list':
      return fc
        .array(
          fc.tuple(
            fc.constantFrom('', ' ', '\t'),
            fc.oneof(text, fc.constant(' ')),
            fc.constantFrom('', ' '),
          ),
          { maxLength: 4 },
        )
        .map((items) => {
          const list = items.map(([a, s, b]) => `${a}${s}${b}`)
          return {
            toml: list,
            loaded: list.map((s) => s.trim()).filter((s) => s !== ''),
            env: JSON.stringify(list),
          }
        })
    case 'json':
      throw new Error(`no generator for ${spec.key}`)
  }
}

/** Some keys, each with a valid value. */
const settings = fc
  .subarray(SIMPLE_KEYS, { minLength: 1 })
  .chain((specs) => fc.tuple(...specs.map((spec) => validValue(spec).map((v) => ({ spec, ...v })))))

function toml(entries: Array<{ spec: ConfigKeySpec; toml: unknown }>): string {
  const doc: Record<string, Record<string, unknown>> = {}
  for (const { spec, toml: value } of entries) {
    const [section, name] = splitKey(spec.key)
    ;(doc[section] ??= {})[name] = value
  }
  return stringify(doc)
}

function valueAt(config: object, key: string): unknown {
  const [section, name] = splitKey(key)
  return (config as Record<string, Record<string, unknown>>)[section]![name]
}

test('valid values load from a TOML file and from SERVICE_* variables alike', () => {
  holds(
    fc.property(settings, (entries) => {
      const fromFile = loadConfig({ file: writeToml(toml(entries)), env: {} })
      const env = Object.fromEntries(
        entries.map(({ spec, env: value }) => [envName(spec.key), value]),
      )
      const fromEnv = loadConfig({ file: null, env })
      for (const { spec, loaded } of entries) {
        assert.deepEqual(valueAt(fromFile.config, spec.key), loaded, `file ${spec.key}`)
        assert.equal(fromFile.origins[spec.key], 'file')
        assert.deepEqual(valueAt(fromEnv.config, spec.key), loaded, `env ${spec.key}`)
        assert.equal(fromEnv.origins[spec.key], 'env')
      }
      // Everything else keeps its default, whichever way the values came.
      assert.deepEqual(fromFile.config, fromEnv.config)
    }),
    { share: 0.4 },
  )
})

function throwsOnlyConfigError(load: () => unknown, label: string): ConfigError | null {
  try {
    load()
    return null
  } catch (error) {
    assert.ok(error instanceof ConfigError, `${label}: ${String(error)}`)
    return error
  }
}

// Values of every TOML type, of the right type or not.
const tomlValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.constantFrom('', ' ', '0', '10s', '-1s', '1.5h', 'sqlite', 'postgres', 'info', '1e3'),
    fc.integer(),
    fc.constantFrom(0, -1, 2 ** 53 - 1),
    fc.double({ noNaN: false }),
    fc.boolean(),
    fc.date({ noInvalidDate: true, min: new Date('0001-01-01'), max: new Date('9999-12-31') }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom('name', 'path', 'account', 'x', 'mapping', 'delimiter'),
      tie('value'),
      { maxKeys: 3 },
    ),
  ),
})).value

test('any value of any key loads or fails with a ConfigError naming that key', () => {
  const key = fc.constantFrom(...CONFIG_KEYS.map((spec) => spec.key))
  holds(
    fc.property(key, tomlValue, (k, value) => {
      const [section, name] = splitKey(k)
      let file: string
      try {
        file = stringify({ [section]: { [name]: value } })
      } catch {
        return // not representable in TOML (a NaN inside an array, say)
      }
      // A cross-key rule names its own key: postgres without a dsn names database.dsn.
      const error = throwsOnlyConfigError(
        () => loadConfig({ file: writeToml(file), env: {} }),
        file,
      )
      if (error !== null && error.key !== null)
        assert.ok(
          error.key === k || CROSS_KEY.has(error.key) || error.key === 'database.dsn',
          `${file}: ${error.message}`,
        )
      const stored = throwsOnlyConfigError(() => validateConfigValue(k, value), `stored ${k}`)
      if (stored !== null) assert.equal(stored.key, k)
      throwsOnlyConfigError(
        () =>
          loadConfig({
            file: null,
            env: {
              [envName(k)]: typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
            },
          }),
        `env ${k}`,
      )
    }),
    { share: 0.4 },
  )
})

// TOML-ish lines: sections, keys, values and the characters that break them.
const LINES = [
  '[server]',
  '[database]',
  '[webhooks]',
  '[nope]',
  '[[csv.folders]]',
  'addr = "0.0.0.0:1"',
  'timeout = "5s"',
  'driver = "postgres"',
  'name = "a"',
  'path = "/x"',
  'account = "b"',
  'max_attempts = 0',
  'enabled = true',
  'x = 1',
  'a.b = 2',
  '= 3',
  '"',
  "'''",
  '[',
  'k = [1, "a"]',
  'k = {a = 1}',
  'k = 1979-05-27T07:32:00Z',
  '\u0000',
  '#',
]

test('any file text loads or fails with a ConfigError, never another error', () => {
  const fileText = fc.oneof(
    fc
      .array(fc.oneof(fc.constantFrom(...LINES), fc.string({ maxLength: 10 })), { maxLength: 8 })
      .map((lines) => lines.join('\n')),
    fc.string({ unit: 'binary', maxLength: 60 }),
  )
  holds(
    fc.property(fileText, (t) => {
      throwsOnlyConfigError(() => loadConfig({ file: writeToml(t), env: {} }), JSON.stringify(t))
    }),
    { share: 0.4 },
  )
})
