// Two validators: request bodies are checked strictly (unknown fields and wrong
// JSON types are 400, nothing is coerced or stripped: CONTRACT 3); query strings
// and path parameters arrive as text, so they are coerced to their schema types.
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { DATE_INPUT_DESCRIPTION } from '../schemas/common.js'
import { DECIMAL_INPUT_PATTERN } from '../schemas/limits.js'

// ajv-formats ships CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce,
    removeAdditional: false,
    useDefaults: false,
    allErrors: true,
    strict: false,
  })
  addFormats(ajv)
  return ajv
}

const bodyAjv = makeAjv(false)
const paramAjv = makeAjv(true)

/**
 * The schema as validated: an amount's syntax and length (shown in the document)
 * are left to the service (ledger/fields.ts requireAmount), whose answer CONTRACT 6
 * words, so a bad amount gets the same problem from REST and MCP as before; so is
 * a numeric date that is not an integer (requireDate names the accepted forms).
 */
function forValidation(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forValidation)
  if (typeof schema !== 'object' || schema === null) return schema
  if ((schema as { description?: unknown }).description === DATE_INPUT_DESCRIPTION) {
    return { anyOf: [{ type: 'string' }, { type: 'number' }] }
  }
  const copy: Record<string, unknown> = {}
  const amount = (schema as { pattern?: unknown }).pattern === DECIMAL_INPUT_PATTERN
  for (const [key, value] of Object.entries(schema)) {
    if (amount && (key === 'pattern' || key === 'maxLength')) continue
    copy[key] = forValidation(value)
  }
  return copy
}

/** A compiled validator: what ajv answers, and why not in `errors`. */
export type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null }

/**
 * A validator compiled at its first call. Every process that loads the routes or
 * the MCP tools (`coffer serve`, `mcp`, each restart) would otherwise compile
 * every schema before it answers anything: about 0.2 s of CPU at each start,
 * most of it for routes that process never sees. Every schema is still
 * compiled in CI (schemas-compile.test.ts), so none first fails on a request.
 */
function compiledOnFirstUse(compile: () => Validate): Validate {
  let compiled: Validate | undefined
  const validate: Validate = (data) => {
    compiled ??= compile()
    const ok = compiled(data)
    validate.errors = compiled.errors ?? null
    return ok
  }
  return validate
}

/** The strict body validator, for inputs that are not HTTP bodies (MCP tool arguments). */
export function compileStrict(schema: object): Validate {
  return compiledOnFirstUse(() => bodyAjv.compile(forValidation(schema) as object) as Validate)
}

/** A query or path integer as sent: decimal digits (a minus is left to `minimum`). */
const INTEGER_TEXT = /^-?\d+$/

function isIntegerSchema(schema: unknown): boolean {
  const type = (schema as { type?: unknown } | undefined)?.type
  return type === 'integer' || type === 'number'
}

function isArraySchema(schema: unknown): boolean {
  return (schema as { type?: unknown } | undefined)?.type === 'array'
}

/**
 * Ajv's coercion reads `0x10`, `1e1` and ` ` as numbers and a repeated key as a
 * wrong type; the query and path are checked as text first, so that a number
 * is plain decimal digits and a key is given once (CONTRACT 3).
 */
function textChecked(schema: unknown, validate: Validate): Validate {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {}
  const checked: Validate = (data) => {
    const issues: { instancePath: string; keyword: string; message: string }[] = []
    if (typeof data === 'object' && data !== null) {
      for (const [key, value] of Object.entries(data)) {
        const property = properties[key]
        const instancePath = `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
        if (Array.isArray(value) && !isArraySchema(property)) {
          issues.push({ instancePath, keyword: 'repeated', message: 'is given more than once' })
        } else if (isIntegerSchema(property) && typeof value === 'string') {
          if (!INTEGER_TEXT.test(value))
            issues.push({
              instancePath,
              keyword: 'type',
              message: 'must be integer',
            })
        }
      }
    }
    if (issues.length > 0) {
      checked.errors = issues
      return false
    }
    const ok = validate(data)
    checked.errors = validate.errors ?? null
    return ok
  }
  return checked
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv
  const validate = compiledOnFirstUse(
    () => ajv.compile(forValidation(schema) as object) as Validate,
  )
  const result =
    httpPart === 'querystring' || httpPart === 'params' ? textChecked(schema, validate) : validate
  return result as ReturnType<FastifySchemaCompiler<unknown>>
}
