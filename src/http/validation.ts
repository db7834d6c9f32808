// Two validators: request bodies are checked strictly (unknown fields and wrong
// JSON types are 400, nothing is coerced or stripped: CONTRACT 3); query strings
// and path parameters arrive as text, so they are coerced to their schema types.
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
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
 * words, so a bad amount gets the same problem from REST and MCP as before.
 */
function forValidation(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forValidation)
  if (typeof schema !== 'object' || schema === null) return schema
  const copy: Record<string, unknown> = {}
  const amount = (schema as { pattern?: unknown }).pattern === DECIMAL_INPUT_PATTERN
  for (const [key, value] of Object.entries(schema)) {
    if (amount && (key === 'pattern' || key === 'maxLength')) continue
    copy[key] = forValidation(value)
  }
  return copy
}

/** The strict body validator, for inputs that are not HTTP bodies (MCP tool arguments). */
export function compileStrict(schema: object): ValidateFunction {
  return bodyAjv.compile(forValidation(schema) as object)
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv
  return ajv.compile(forValidation(schema) as object) as ReturnType<FastifySchemaCompiler<unknown>>
}
