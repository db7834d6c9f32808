// The error a single bad value raises before the loader knows where it came from
// (file, environment or stored setting) and adds that to the message.

/** A bad value; `path` locates it inside a structured value, e.g. '[1].mapping.delimtr'. */
export class ValueProblem extends Error {
  constructor(
    message: string,
    readonly path = '',
  ) {
    super(message)
    this.name = 'ValueProblem'
  }
}

/** How a value's type reads in an error message, in TOML's words. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'nothing'
  if (Array.isArray(value)) return 'array'
  if (value instanceof Date) return 'date'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'float'
  if (typeof value === 'object') return 'table'
  return typeof value
}

export function isTable(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  )
}
