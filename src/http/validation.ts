// Two validators: request bodies are checked strictly (unknown fields and wrong
// JSON types are 400, nothing is coerced or stripped: CONTRACT 3); query strings
// and path parameters arrive as text, so they are coerced to their schema types.
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

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

/** The strict body validator, for inputs that are not HTTP bodies (MCP tool arguments). */
export function compileStrict(schema: object): ValidateFunction {
  return bodyAjv.compile(schema)
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : paramAjv
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>
}
