// The fuzz pass's generator (issue 17): from the JSON Schemas the running service
// publishes (the OpenAPI document's parameters and request bodies, the MCP tools'
// inputSchemas), fast-check arbitraries of requests that are mostly hostile —
// wrong types, missing and extra fields, huge and deeply nested values, unicode
// edge cases, NUL and control characters, numbers a double cannot hold, path
// traversal in ids, malformed JSON, wrong content types, repeated and malformed
// query keys — and sometimes valid, so that ids exist and writes happen.
//
// Generation never sees the live data: an id is an IdRef (a kind and an index),
// resolved when the request is sent against the ids that exist then. So a seed
// always yields the same sequence of requests, whatever ids the server minted.
import fc from 'fast-check'

/** The subset of JSON Schema (TypeBox's output) the generator reads. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  patternProperties?: Record<string, JsonSchema>
  items?: JsonSchema
  anyOf?: JsonSchema[]
  const?: unknown
  enum?: unknown[]
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  pattern?: string
  maxItems?: number
}

/** JSON text put verbatim into a body (numbers JSON.stringify cannot write, deep nesting). */
export class Raw {
  constructor(
    readonly text: string,
    readonly note: string,
  ) {}
}

/** The kinds of ids the fuzzer knows (harness.ts keeps a pool of each). */
export type IdKind =
  | 'account'
  | 'transaction'
  | 'org'
  | 'rule'
  | 'webhook'
  | 'apiKey'
  | 'labelKey'
  | 'sequence'
  | 'sourceType'
  | 'credential'
  | 'receiverUrl'

/** An id of the live ledger, chosen when the request is sent. */
export class IdRef {
  constructor(
    readonly kind: IdKind,
    readonly index: number,
  ) {}
}

/** Turns a generated value into JSON text: Raw verbatim, IdRef through `resolve`. */
export function jsonText(value: unknown, resolve: (ref: IdRef) => string): string {
  if (value instanceof Raw) return value.text
  if (value instanceof IdRef) return JSON.stringify(resolve(value))
  if (Array.isArray(value)) return `[${value.map((v) => jsonText(v, resolve)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v, resolve)}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** A short, printable description of a value, for failure messages. */
export function describe(value: unknown, max = 300): string {
  let text: string
  try {
    text = jsonText(value, (ref) => `<${ref.kind}#${ref.index}>`)
  } catch {
    text = String(value)
  }
  if (text.length > max) return `${text.slice(0, max)}… (${text.length} chars)`
  return text
}

// ---------------------------------------------------------------------------
// Hostile values

const MIB = 1024 * 1024
const HUGE = 'x'.repeat(MIB + 16) // over the 1 MiB body limit on its own
const LARGE = 'y'.repeat(200_000)
const LONG = 'z'.repeat(5_000)
const EMOJI_LARGE = '💩'.repeat(30_000)
const deepArrays = (n: number) => '['.repeat(n) + ']'.repeat(n)
const deepObjects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n)
const DEEP_10K = new Raw(deepArrays(10_000), '10k nested arrays')
const DEEP_10K_OBJ = new Raw(deepObjects(10_000), '10k nested objects')
const DEEP_65 = new Raw(deepArrays(65), '65 nested arrays')
const DEEP_63 = new Raw(deepObjects(63), '63 nested objects')
const WIDE_ARRAY = new Raw(`[${Array.from({ length: 20_000 }, (_, i) => i).join(',')}]`, 'wide')
const WIDE_OBJECT = new Raw(
  `{${Array.from({ length: 5_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
  'wide object',
)

/** Strings that are lone UTF-16 surrogates (written as JSON escapes). */
export const LONE_SURROGATES = [
  new Raw('"\\ud800"', 'lone high surrogate'),
  new Raw('"a\\udfffb"', 'lone low surrogate'),
  new Raw('"\\udc00\\ud800"', 'reversed surrogate pair'),
]

/** Unicode edge cases, NUL and control characters. */
export const UNICODE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u0007\u0008\u001b\u001f\u007f',
  '\r\n\t\v\f',
  '\u0085\u2028\u2029',
  '\ufffe',
  '\uffff',
  '\ufeffbom',
  '\u202eevil\u202c',
  'שלום עולם',
  'مرحبا',
  'e\u0301\u0301\u0301\u0301\u0301\u0301',
  'Z̸̡̛̙̰̓͑a̶̧͎̐l̷̨̛͖g̵̱̐o̶̞͝',
  '👨‍👩‍👧‍👦🏳️‍🌈🇺🇳',
  '\u{10ffff}',
  '\u200b\u200c\u200d\u2060',
  'ＦＵＬＬＷＩＤＴＨ',
  'İıſ',
  '',
  ' ',
  '   padded   ',
]

/** Path traversal and injection-shaped text. */
export const TRAVERSAL_STRINGS = [
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/etc/passwd',
  '....//....//etc/passwd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  'file:///etc/passwd',
  'http://169.254.169.254/latest/meta-data/',
  "' OR '1'='1",
  '"; drop table transactions; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '%s%s%s%n',
  '{{7*7}}',
  '__proto__',
  'constructor',
]

/** Numbers as JSON text: beyond 2^53, negative zero, overflow, underflow, long fractions. */
export const NUMBER_TEXTS = [
  new Raw('9007199254740993', '2^53+1'),
  new Raw('-9007199254740993', '-(2^53+1)'),
  new Raw('9007199254740992', '2^53'),
  new Raw('18446744073709551616', '2^64'),
  new Raw('123456789012345678901234567890', '30 digits'),
  new Raw('-0', 'negative zero'),
  new Raw('1e309', 'overflow'),
  new Raw('-1e309', 'negative overflow'),
  new Raw('1e-400', 'underflow'),
  new Raw('0.1000000000000000000001', 'long fraction'),
  new Raw('1.0', 'integral float'),
  new Raw('1E2', 'exponent'),
  new Raw('2.5', 'fraction'),
  new Raw('-1', 'minus one'),
]

const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, [], {}, '', [1, 'a'], { a: 1 }]

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...WRONG_TYPES) },
  { weight: 4, arbitrary: fc.constantFrom(...UNICODE_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
  { weight: 3, arbitrary: fc.constantFrom(...TRAVERSAL_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_TEXTS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      LONG,
      LARGE,
      HUGE,
      EMOJI_LARGE,
      DEEP_10K,
      DEEP_10K_OBJ,
      DEEP_65,
      DEEP_63,
      WIDE_ARRAY,
      WIDE_OBJECT,
    ),
  },
  { weight: 1, arbitrary: fc.constant(new Raw('{"__proto__":{"admin":true}}', 'proto')) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
)

/** Values of the right JSON type that sit on an edge of what a field means. */
const EDGE_BY_NAME: Record<string, unknown[]> = {
  amount: [
    '9'.repeat(64),
    '-' + '9'.repeat(63),
    '0.' + '0'.repeat(62) + '1',
    '1.',
    '.0',
    '+',
    '-',
    '1,5',
    '１２',
  ],
  date: [
    '0000-00-00',
    '0000-01-01',
    '9999-12-31',
    '+275760-09-13',
    '2024-02-30',
    '2024-13-01',
    '2024-05-01T24:00:00Z',
    '2024-05-01T23:59:60Z',
    '2024-05-01T12:00:00-24:00',
    '2024-05-01 12:00',
    '1714564800',
    '-62135596800',
    -62135596801,
    253402300800,
    8640000000000001,
    2 ** 53 - 1,
    -1,
  ],
  since: ['0000-01-01', '9999-12-31', '-1', '99999999999999', '2024-02-30', '1714564800.5'],
  until: ['0000-01-01', '9999-12-31', '-1', '99999999999999', '2024-02-30'],
  currency: ['', 'usd', 'X'.repeat(300), '💶', 'US D'],
  query: [
    '((((((',
    ')',
    'amount:<',
    'amount:<abc',
    'date:',
    'date:2024-99',
    'ext:',
    'ext:a.b~',
    'ext:=x',
    '"unterminated',
    'a'.repeat(4097),
    'a '.repeat(101),
    '('.repeat(101) + 'a' + ')'.repeat(101),
    'NOT NOT NOT',
    'OR',
    'amount:<9007199254740993',
    'amount:>1e309',
    '*',
    '\\',
    'payee:',
  ],
  q: ['((((((', 'amount:<', 'a'.repeat(5000), '('.repeat(200) + 'a' + ')'.repeat(200), 'ext:~'],
  url: [
    'http://127.0.0.1:1/',
    'ftp://127.0.0.1/',
    'javascript:alert(1)',
    'http://[::1]:1/',
    'http://user:pass@127.0.0.1:1/',
    'http://0x7f.1/',
    'http://2130706433/',
    'https://' + 'a'.repeat(2100),
  ],
  event_types: [['nope.event'], ['*', 'transaction.created'], Array(65).fill('*'), [''], [null]],
  labels: [
    { '': 'x' },
    { ['k'.repeat(65)]: 'v' },
    { k: 'v'.repeat(257) },
    Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    { ключ: 'значение' },
    { 'k\ud800': 'v' },
    { k: 'a\udfff' },
    { 'k\u0000': 'v' },
  ],
  extensions: [
    { nodot: 1 },
    { '.': 1 },
    { 'a.': 1 },
    { '.b': 1 },
    { ['a.' + 'b'.repeat(100)]: 1 },
    { 'a.b': 'x'.repeat(9000) },
    Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`a.k${i}`, i])),
    { 'a.b': null },
    { 'café.clé': 1 },
    { 'ns.\ud800': 1 },
    { 'ns.键': '值', 'ns.🔑': true },
    { 'ns.\u202ekey': 1 },
    { 'a.b': { c: [1, { d: [] }] } },
  ],
  name: ['', 'n'.repeat(201), ' ', '\t'],
  kind: ['', 'k'.repeat(300), 'self', 'refund '],
  target: ['', 'x'.repeat(513)],
  account_id: ['', 'x'.repeat(513), 'csv:checking'],
  token: [
    '',
    'short',
    't'.repeat(4097),
    'with space inside token',
    'aHR0cDovLzEyNy4wLjAuMToxL2NsYWlt',
  ],
  scope: ['admin', 'READ', 'read ', ''],
  limit: [0, 1000, 1001, 2 ** 53 - 1],
  offset: [2 ** 53 - 1, 1e9],
  after: [2 ** 53 - 1],
  newest: [0, 2 ** 53 - 1],
}

/** An edge value for one of the object's named fields, when there are any. */
function edgeMutation(fields: string[]): fc.Arbitrary<Mutation> | null {
  const named = fields.filter((f) => EDGE_BY_NAME[f])
  if (named.length === 0) return null
  return fc
    .constantFrom(...named)
    .chain((field) =>
      fc
        .constantFrom(...EDGE_BY_NAME[field]!)
        .map((value): Mutation => ({ op: 'set', field, value })),
    )
}

// ---------------------------------------------------------------------------
// Valid values, from the schema and the field's name

const AMOUNTS = ['12.34', '-4.50', '0', '+1.5', '.5', '1000000.000001', '-0.00']
const DATES = ['2024-05-01', '2024-05-01T12:00:00Z', '2023-12-31', '2024-02-29T23:59:59+02:00']
const QUERIES = ['payee:cafe', 'amount:<0', 'date:2024', 'ext:fuzz.note', 'coffee', 'lunch OR rent']
const LABEL_KEYS = ['category', 'fuzz', 'trip']

/** Which id kind a field or path parameter holds, by its name (and the segment before it). */
export function idKindOf(name: string, context = ''): IdKind | null {
  if (name === 'account_id') return 'account'
  if (name === 'org_id') return 'org'
  if (name === 'target' || name === 'entity_id') return 'transaction'
  if (name === 'label_key' || name === 'key') return 'labelKey'
  if (name === 'sequence') return 'sequence'
  if (name === 'type' && context === 'sources') return 'sourceType'
  if (name !== 'id') return null
  if (/accounts/.test(context) || /_account$/.test(context)) return 'account'
  if (/transaction/.test(context)) return 'transaction'
  if (/rule/.test(context)) return 'rule'
  if (/webhook/.test(context)) return 'webhook'
  if (/api-keys|api_key/.test(context)) return 'apiKey'
  if (/credentials/.test(context)) return 'credential'
  return null
}

const idRef = (kind: IdKind) => fc.nat(50).map((i) => new IdRef(kind, i))

function byName(name: string, schema: JsonSchema, context: string): fc.Arbitrary<unknown> | null {
  const kind = idKindOf(name, context)
  if (kind) return idRef(kind)
  switch (name) {
    case 'amount':
    case 'balance':
      return fc.constantFrom(...AMOUNTS)
    case 'date':
    case 'since':
    case 'until':
      return schema.anyOf?.some((s) => s.type === 'integer')
        ? fc.oneof(fc.constantFrom(...DATES), fc.constant(1714564800))
        : fc.constantFrom(...DATES)
    case 'currency':
      return fc.constantFrom('USD', 'EUR', 'BTC')
    case 'url':
      return idRef('receiverUrl')
    case 'event_types':
      return fc.constantFrom(
        ['*'],
        ['transaction.created'],
        [],
        ['account.created', 'rule.updated'],
      )
    case 'query':
    case 'q':
      return fc.constantFrom(...QUERIES)
    case 'kind':
      return fc.constantFrom('refund', 'duplicate_of', 'transfer')
    case 'name':
      return fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
    case 'labels':
      return fc.dictionary(fc.constantFrom(...LABEL_KEYS), fc.string({ maxLength: 20 }), {
        maxKeys: 3,
      })
    case 'extensions':
      return fc.dictionary(
        fc.constantFrom('fuzz.note', 'fuzz.score', 'app.tag'),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 3 },
      )
    case 'token':
      return fc.oneof(
        fc.constant('0x' + 'ab'.repeat(20)),
        fc.string({ unit: 'grapheme-ascii', minLength: 16, maxLength: 40 }),
      )
    case 'entity_type':
      return fc.constantFrom('transaction', 'account', 'label', 'rule')
    case 'type':
      return fc.constantFrom('transaction.created', 'account.updated', 'label.applied')
    case 'limit':
    case 'offset':
    case 'after':
    case 'newest':
      return fc.integer({ min: name === 'newest' ? 1 : 0, max: 20 })
    default:
      return null
  }
}

/** A value that satisfies `schema` (mostly: names steer towards values the service accepts). */
export function validValue(schema: JsonSchema, name = '', context = ''): fc.Arbitrary<unknown> {
  const named = byName(name, schema, context)
  if (named) return named
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.anyOf) {
    const branches = schema.anyOf.filter((s) => s.type !== 'null')
    return fc.oneof(...(branches.length ? branches : schema.anyOf).map((s) => validValue(s)))
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'string':
      return fc.string({
        unit: 'grapheme',
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 30, 30),
      })
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? 0, 0),
        max: Math.min(schema.maximum ?? 100, 100),
      })
    case 'number':
      return fc.double({ min: 0, max: 100, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(schema.items ? validValue(schema.items) : fc.jsonValue(), { maxLength: 3 })
    case 'object':
      return validObject(schema, context)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** An object with every required field and some optional ones. */
export function validObject(schema: JsonSchema, context = ''): fc.Arbitrary<unknown> {
  const props = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  const names = Object.keys(props)
  if (names.length === 0) {
    const values = schema.patternProperties
      ? Object.values(schema.patternProperties)[0]
      : typeof schema.additionalProperties === 'object'
        ? schema.additionalProperties
        : null
    if (values)
      return fc.dictionary(fc.string({ maxLength: 10 }), validValue(values), { maxKeys: 3 })
    return fc.constant({})
  }
  return fc.record(Object.fromEntries(names.map((n) => [n, validValue(props[n]!, n, context)])), {
    requiredKeys: names.filter((n) => required.has(n)),
  })
}

// ---------------------------------------------------------------------------
// Mutations of an object (a body, tool arguments)

export type Mutation =
  | { op: 'set'; field: string; value: unknown }
  | { op: 'delete'; field: string }
  | { op: 'extra'; field: string; value: unknown }

const EXTRA_FIELDS = ['extra', 'id', 'source', '__proto__', 'constructor', 'créé', '', 'a.b', '$gt']

/** 1–3 mutations of the object's own fields (and extra ones). */
export function mutations(schema: JsonSchema): fc.Arbitrary<Mutation[]> {
  const fields = Object.keys(schema.properties ?? {})
  const one: fc.Arbitrary<Mutation>[] = [
    fc
      .tuple(fc.constantFrom(...EXTRA_FIELDS), hostileValue)
      .map(([field, value]) => ({ op: 'extra', field, value })),
  ]
  if (fields.length > 0) {
    one.push(
      fc
        .tuple(fc.constantFrom(...fields), hostileValue)
        .map(([field, value]) => ({ op: 'set', field, value })),
      fc
        .tuple(fc.constantFrom(...fields), hostileValue)
        .map(([field, value]) => ({ op: 'set', field, value })),
      fc.constantFrom(...fields).map((field) => ({ op: 'delete', field })),
    )
    const edge = edgeMutation(fields)
    if (edge) one.push(edge, edge, edge)
  }
  return fc.array(fc.oneof(...one), { minLength: 1, maxLength: 3 })
}

/** Applies mutations; the result may hold Raw and IdRef values. */
export function applyMutations(base: unknown, list: Mutation[]): Record<string, unknown> {
  const out: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base) ? { ...base } : {}
  for (const m of list) {
    if (m.op === 'delete') delete out[m.field]
    else
      Object.defineProperty(out, m.field, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      })
  }
  return out
}

/** Whole bodies that are not a JSON object, or not JSON at all. */
export const MALFORMED_BODIES: Array<string | Buffer> = [
  '',
  ' ',
  '{',
  '}',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '{"a":1}{"b":2}',
  '{"a" 1}',
  'nul',
  'null',
  'true',
  '0',
  '-0',
  '1e309',
  '"string"',
  '[]',
  '[{}]',
  '[1,2',
  'undefined',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":0x10}',
  '{"a":01}',
  '\ufeff{}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\u0000"}',
  '{"a":"line\nbreak"}',
  '{"name":"a","name":"b"}',
  '\u0000',
  '{}\u0000',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  deepArrays(10_000),
  deepObjects(10_000),
  deepArrays(100),
  '{"a":' + '['.repeat(70) + ']'.repeat(70) + '}',
  `{"a":"${'x'.repeat(MIB)}"}`,
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  Buffer.from('{"a":"\xff"}', 'latin1'),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), // CESU surrogate
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]), // overlong '/'
  Buffer.from('\ufeff{}', 'utf16le'),
]

export const CONTENT_TYPES: Array<string | null> = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/JSON',
  'application/json, text/plain',
  'application/problem+json',
  'application/json-patch+json',
  'Application/Json;;;',
  'application/jsonx',
  '*/*',
  '',
]

// ---------------------------------------------------------------------------
// Path and query pieces

/** A path segment as it is put into the URL: `text` percent-encoded, or `raw` as given. */
export type Segment = { text: string } | { raw: string } | IdRef

export const hostileSegment: fc.Arbitrary<Segment> = fc.oneof(
  fc.constantFrom<Segment>(
    { text: '../../etc/passwd' },
    { raw: '..%2F..%2Fetc%2Fpasswd' },
    { raw: '%2e%2e%2f%2e%2e%2f' },
    { raw: '%2e%2e' },
    { raw: '..' },
    { raw: '.' },
    { raw: '%00' },
    { raw: 'a%00b' },
    { raw: '%zz' },
    { raw: '%' },
    { raw: '%c0%af' },
    { raw: '%ed%a0%80' },
    { raw: '%ff%fe' },
    { raw: '%F0%9F%92%A9' },
    { raw: '%0d%0aX-Injected:%201' },
    { raw: '%20' },
    { raw: '%2F' },
    { raw: '%5C..%5C' },
    { raw: 'a;b=c' },
    { raw: '*' },
    { text: 'x'.repeat(1024) },
    { text: 'x'.repeat(1025) },
    { text: 'é'.repeat(600) },
    { text: 'y'.repeat(20_000) },
    { text: '9007199254740993' },
    { text: '-1' },
    { text: '1e3' },
    { text: '0x10' },
    { text: '00001' },
    { text: ' 1' },
    { text: '' },
  ),
  fc.constantFrom(...UNICODE_STRINGS, ...TRAVERSAL_STRINGS).map((text): Segment => ({ text })),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((text): Segment => ({ text })),
)

/** One query item: a key and a value, each encoded or raw; or a raw piece (`&&`, `=x`). */
export type QueryItem =
  { key: string; value: unknown; rawKey?: boolean; rawValue?: boolean } | { piece: string }

const hostileQueryValue: fc.Arbitrary<{ value: unknown; rawValue?: boolean }> = fc.oneof(
  fc
    .constantFrom(
      '',
      '-1',
      '1.5',
      '1e3',
      '0x10',
      '9007199254740993',
      '99999999999999999999999',
      'NaN',
      'null',
      'true',
      '[]',
      '{}',
      '2024-13-45',
      '2024-02-30',
      '99999-01-01',
      '-000001-01-01',
      '1714564800.5',
      '-99999999999999',
      'x'.repeat(10_000),
    )
    .map((value) => ({ value })),
  fc.constantFrom(...UNICODE_STRINGS, ...TRAVERSAL_STRINGS).map((value) => ({ value })),
  fc
    .constantFrom('%zz', '%', '%e9', '%ed%a0%80', '%00', '%c0%80', '%2', 'a%ZZb', '%0a%0d')
    .map((value) => ({ value, rawValue: true })),
)

export function hostileQuery(params: Array<{ name: string }>): fc.Arbitrary<QueryItem[]> {
  const names = params.map((p) => p.name)
  const anyName = names.length ? fc.constantFrom(...names) : fc.constant('limit')
  const edged = names.filter((n) => EDGE_BY_NAME[n])
  const edgeItem: fc.Arbitrary<QueryItem[]>[] = edged.length
    ? [
        fc
          .constantFrom(...edged)
          .chain((key) =>
            fc
              .constantFrom(...EDGE_BY_NAME[key]!)
              .map((v) => [{ key, value: typeof v === 'string' ? v : JSON.stringify(v) }]),
          ),
      ]
    : []
  const item: fc.Arbitrary<QueryItem[]> = fc.oneof(
    ...edgeItem,
    // A declared key with a hostile value.
    fc.tuple(anyName, hostileQueryValue).map(([key, v]) => [{ key, ...v }]),
    // The same key twice.
    fc.tuple(anyName, fc.constantFrom('1', '2', 'a')).map(([key, v]) => [
      { key, value: v },
      { key, value: v },
    ]),
    // Array and object notations, unknown keys.
    fc
      .tuple(anyName, fc.constantFrom('[]', '[0]', '[a]', '.x', '[__proto__]'))
      .map(([key, suffix]) => [{ key: `${key}${suffix}`, value: '1' }]),
    fc
      .constantFrom('__proto__', 'constructor', 'unknown', 'LIMIT', 'limit ', '')
      .map((key) => [{ key, value: '1' }]),
    // Raw pieces: empty pairs, a key without value, garbled encodings, very long.
    fc
      .constantFrom(
        '&&&',
        '=x',
        '=',
        '&=&',
        'limit',
        'limit=',
        '%zz=1',
        'a%00=1',
        'limit=1;offset=2',
        '+=+',
        '?',
        '#frag',
        `pad=${'q'.repeat(9_000)}`,
        `pad=${'q'.repeat(70_000)}`,
        Array.from({ length: 2_000 }, (_, i) => `k${i}=${i}`).join('&'),
      )
      .map((piece) => [{ piece }]),
  )
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => items.flat())
}

/** Valid values for some of the declared query parameters. */
export function validQuery(
  params: Array<{ name: string; schema: JsonSchema }>,
  context: string,
): fc.Arbitrary<QueryItem[]> {
  if (params.length === 0) return fc.constant([])
  return fc.subarray(params, { maxLength: Math.min(3, params.length) }).chain((chosen) =>
    chosen.length === 0
      ? fc.constant([])
      : fc.tuple(
          ...chosen.map((p) =>
            validValue(p.schema, p.name, context).map((value): QueryItem => ({
              key: p.name,
              value,
            })),
          ),
        ),
  )
}

export function serializeQuery(items: QueryItem[], resolve: (ref: IdRef) => string): string {
  if (items.length === 0) return ''
  const parts = items.map((item) => {
    if ('piece' in item) return item.piece
    const key = item.rawKey ? item.key : encodeURIComponent(wellFormed(item.key))
    const v = item.value instanceof IdRef ? resolve(item.value) : item.value
    const text = typeof v === 'string' ? v : describe(v)
    return `${key}=${item.rawValue ? text : encodeURIComponent(wellFormed(text))}`
  })
  return '?' + parts.join('&')
}

/** Encodes a segment; lone surrogates cannot be percent-encoded, they become %ED%A0%80-style. */
export function encodeSegment(seg: Segment, resolve: (ref: IdRef) => string): string {
  if (seg instanceof IdRef) return encodeURIComponent(resolve(seg))
  if ('raw' in seg) return seg.raw
  return encodeURIComponent(wellFormed(seg.text))
}

/** The text with lone surrogates replaced (encodeURIComponent throws on them). */
export function wellFormed(text: string): string {
  return text.replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    '\ufffd',
  )
}

// ---------------------------------------------------------------------------
// HTTP requests, one operation of the OpenAPI document at a time

export interface Parameter {
  name: string
  in: 'path' | 'query' | 'header'
  required?: boolean
  schema: JsonSchema
}

export interface Operation {
  method: string
  /** The OpenAPI path template, e.g. /api/v1/accounts/{id}. */
  path: string
  parameters: Parameter[]
  body: JsonSchema | null
}

/** Who the request claims to be. */
export type AuthKind = 'admin' | 'none' | 'wrong' | 'malformed' | 'read' | 'read_write'

export type BodySpec =
  { kind: 'json'; value: unknown } | { kind: 'text'; text: string | Buffer } | { kind: 'none' }

export interface HttpCase {
  /** "METHOD /path/template" of the operation. */
  op: string
  strategy: string
  method: string
  path: string
  segments: Record<string, Segment>
  query: QueryItem[]
  body: BodySpec
  /** `undefined`: application/json when there is a body; null: no Content-Type header. */
  contentType?: string | null
  auth: AuthKind
  headers: Record<string, string>
}

/** Reads the operations (and their request schemas) of an OpenAPI 3.1 document. */
export function operationsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[]
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
      }
    >
  >
}): Operation[] {
  const out: Operation[] = []
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
      })
    }
  }
  return out
}

const authKind: fc.Arbitrary<AuthKind> = fc.oneof(
  { weight: 30, arbitrary: fc.constant<AuthKind>('admin') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<AuthKind>('none', 'wrong', 'malformed', 'read', 'read_write'),
  },
)

const ODD_HEADERS: Array<Record<string, string>> = [
  { accept: 'text/html' },
  { accept: 'application/xml;q=1, */*;q=0' },
  { 'accept-encoding': 'gzip;q=0, identity;q=0' },
  { 'content-encoding': 'gzip' },
  { 'content-encoding': 'br, gzip' },
  { 'content-encoding': 'identity' },
  { 'content-encoding': 'x-unknown' },
  { origin: 'https://evil.example' },
  { origin: 'null' },
  { 'sec-fetch-site': 'cross-site' },
  { 'x-forwarded-for': '127.0.0.1, ../../etc' },
  { 'x-forwarded-host': 'evil.example' },
  { 'last-event-id': '9007199254740993' },
  { 'last-event-id': '-1' },
  { 'if-none-match': '*' },
  { range: 'bytes=0-0' },
  { expect: '100-continue' },
  { 'x-large': 'h'.repeat(20_000) },
  { 'x-huge': 'h'.repeat(70_000) },
  { authorization: 'Basic Zm9vOmJhcg==' },
  { authorization: 'Bearer' },
  { authorization: `Bearer ${'t'.repeat(10_000)}` },
]

const ODD_METHODS = ['PATCH', 'OPTIONS', 'PROPFIND', 'PUT', 'DELETE', 'POST', 'GET']

/** Requests for one operation, mostly hostile. */
export function httpCase(op: Operation): fc.Arbitrary<HttpCase> {
  const name = `${op.method} ${op.path}`
  const pathParams = op.parameters.filter((p) => p.in === 'path')
  const queryParams = op.parameters.filter((p) => p.in === 'query')
  const segmentsBefore = (param: string) => {
    const parts = op.path.split('/')
    const at = parts.indexOf(`{${param}}`)
    return parts[at - 1] ?? ''
  }
  const validSegments: fc.Arbitrary<Record<string, Segment>> = fc.record(
    Object.fromEntries(
      pathParams.map((p) => {
        const kind = idKindOf(p.name, segmentsBefore(p.name))
        const arb: fc.Arbitrary<Segment> = kind
          ? fc.oneof(
              { weight: 4, arbitrary: idRef(kind) },
              { weight: 1, arbitrary: fc.constant<Segment>({ text: 'no-such-id' }) },
            )
          : fc.constantFrom<Segment>({ text: 'csv' }, { text: 'ethereum' }, { text: 'aggregator' })
        return [p.name, arb]
      }),
    ),
  )
  const validBody: fc.Arbitrary<BodySpec> = op.body
    ? validObject(op.body, op.path).map((value): BodySpec => ({ kind: 'json', value }))
    : fc.constant<BodySpec>({ kind: 'none' })
  const base = fc.record({
    segments: validSegments,
    query: validQuery(queryParams, op.path),
    body: validBody,
    auth: authKind,
  })
  const make = (strategy: string, arb: fc.Arbitrary<Partial<HttpCase>>) =>
    fc.tuple(base, arb).map(([b, over]): HttpCase => ({
      op: name,
      strategy,
      method: op.method,
      path: op.path,
      headers: {},
      ...b,
      ...over,
    }))
  const strategies: Array<{ weight: number; arbitrary: fc.Arbitrary<HttpCase> }> = [
    { weight: 8, arbitrary: make('valid', fc.constant({})) },
    {
      weight: 12,
      arbitrary: make(
        'query',
        fc.tuple(validQuery(queryParams, op.path), hostileQuery(queryParams)).map(([v, h]) => ({
          query: [...v, ...h],
        })),
      ),
    },
    {
      weight: 5,
      arbitrary: make(
        'auth',
        fc
          .constantFrom<AuthKind>('none', 'wrong', 'malformed', 'read', 'read_write')
          .map((auth) => ({
            auth,
          })),
      ),
    },
    {
      weight: 4,
      arbitrary: make(
        'headers',
        fc.constantFrom(...ODD_HEADERS).map((headers) => ({ headers })),
      ),
    },
    {
      weight: 3,
      arbitrary: make(
        'method',
        fc.constantFrom(...ODD_METHODS.filter((m) => m !== op.method)).map((method) => ({
          method,
        })),
      ),
    },
  ]
  if (pathParams.length > 0) {
    strategies.push({
      weight: 14,
      arbitrary: make(
        'path',
        fc
          .tuple(fc.constantFrom(...pathParams.map((p) => p.name)), hostileSegment)
          .map(([param, seg]) => ({ [param]: seg }))
          .chain((hostile) =>
            validSegments.map((segments) => ({ segments: { ...segments, ...hostile } })),
          ),
      ),
    })
  }
  if (op.body) {
    const schema = op.body
    strategies.push(
      {
        weight: 24,
        arbitrary: make(
          'body-fields',
          fc
            .tuple(validObject(schema, op.path), mutations(schema))
            .map(([value, list]): Partial<HttpCase> => ({
              body: { kind: 'json', value: applyMutations(value, list) },
            })),
        ),
      },
      {
        weight: 8,
        arbitrary: make(
          'body-whole',
          fc.oneof(
            fc
              .constantFrom(...MALFORMED_BODIES)
              .map((text): Partial<HttpCase> => ({ body: { kind: 'text', text } })),
            hostileValue.map((value): Partial<HttpCase> => ({ body: { kind: 'json', value } })),
          ),
        ),
      },
      {
        weight: 6,
        arbitrary: make(
          'content-type',
          fc.tuple(validBody, fc.constantFrom(...CONTENT_TYPES)).map(([body, contentType]) => ({
            body,
            contentType,
          })),
        ),
      },
    )
  } else {
    // A body where none is expected.
    strategies.push({
      weight: 4,
      arbitrary: make(
        'unexpected-body',
        fc
          .tuple(
            fc.oneof(
              fc.constantFrom<BodySpec>(
                { kind: 'json', value: {} },
                { kind: 'json', value: { a: 1 } },
                { kind: 'json', value: [] },
              ),
              fc
                .constantFrom(...MALFORMED_BODIES)
                .map((text): BodySpec => ({ kind: 'text', text })),
            ),
            fc.constantFrom<string | null | undefined>(undefined, 'text/plain', null),
          )
          .map(([body, contentType]) => ({ body, contentType })),
      ),
    })
  }
  return fc.oneof(...strategies)
}

// ---------------------------------------------------------------------------
// MCP tool calls

export interface ToolSchema {
  name: string
  inputSchema: JsonSchema
}

/** A JSON-RPC message to POST to /mcp, and how to send it. */
export interface McpCase {
  tool: string
  strategy: string
  /** A tools/call message's arguments, or a whole raw message. */
  message: { kind: 'call'; name: unknown; args: unknown } | { kind: 'raw'; text: string | Buffer }
  contentType?: string | null
  accept?: string | null
}

/** Calls of one tool, mostly hostile. */
export function mcpCase(tool: ToolSchema): fc.Arbitrary<McpCase> {
  const schema = tool.inputSchema
  const valid = validObject(schema, tool.name)
  const call = (strategy: string, args: fc.Arbitrary<unknown>, name: unknown = tool.name) =>
    args.map((a): McpCase => ({
      tool: tool.name,
      strategy,
      message: { kind: 'call', name, args: a },
    }))
  return fc.oneof(
    { weight: 10, arbitrary: call('valid', valid) },
    {
      weight: 30,
      arbitrary: call(
        'args-fields',
        fc.tuple(valid, mutations(schema)).map(([v, list]) => applyMutations(v, list)),
      ),
    },
    { weight: 6, arbitrary: call('args-whole', hostileValue) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.constantFrom<unknown>(...UNICODE_STRINGS, ...TRAVERSAL_STRINGS, 1, null, [], {}),
            fc.constant(`${tool.name}\u0000`),
            fc.constant(tool.name.toUpperCase()),
          ),
          valid,
        )
        .map(([name, args]): McpCase => ({
          tool: tool.name,
          strategy: 'tool-name',
          message: { kind: 'call', name, args },
        })),
    },
  )
}

/** Hostile JSON-RPC envelopes and transport-level oddities (any tool). */
export const mcpTransportCase: fc.Arbitrary<McpCase> = fc.oneof(
  fc
    .constantFrom<string | Buffer>(
      ...MALFORMED_BODIES,
      '{"jsonrpc":"2.0","id":1}',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","arguments":[]}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","arguments":"x"}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      '{"jsonrpc":"2.0","id":1,"method":"../../etc/passwd"}',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\\ud800"}}',
      '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]',
      `[${Array.from({ length: 500 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"tools/list"}`).join(',')}]`,
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"resources/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"x"}}',
    )
    .map((text): McpCase => ({ tool: '*', strategy: 'envelope', message: { kind: 'raw', text } })),
  fc
    .tuple(
      fc.constantFrom<string | null>(...CONTENT_TYPES),
      fc.constantFrom<string | null>(
        null,
        'application/json, text/event-stream',
        'application/json',
        'text/event-stream',
        'text/html',
        '*/*',
      ),
    )
    .map(([contentType, accept]): McpCase => ({
      tool: '*',
      strategy: 'transport',
      message: { kind: 'call', name: 'list_accounts', args: {} },
      contentType,
      accept,
    })),
)
