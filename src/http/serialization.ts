// Response serialisers: Fastify's own (fast-json-stringify, one per response
// schema), each compiled when its route first answers with that status.
import {
  SerializerSelector,
  type SerializerFactory,
  type Serializer,
} from '@fastify/fast-json-stringify-compiler'

const fastJsonStringify = SerializerSelector()

/**
 * Building an app otherwise compiles every route's response schemas before it
 * answers anything: about 0.1 s of CPU at each `coffer serve` start (and each
 * restart, and each app a test builds), mostly for answers that process never
 * gives. The output is the same serialiser's, so what a response holds does not
 * change; every schema is still compiled in CI (schemas-compile.test.ts).
 */
export const serializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = fastJsonStringify(externalSchemas, options)
  return (route) => {
    let serialize: Serializer | undefined
    return (doc) => (serialize ??= compile(route))(doc)
  }
}
