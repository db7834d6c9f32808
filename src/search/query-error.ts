// The one error a query that does not parse raises: a 400 whose detail names the
// problem and the character offset (CONTRACT 7), so a user can find it.
import { Invalid } from '../errors.js'

export class QueryError extends Invalid {
  /** UTF-16 index into the query text where the problem is. */
  readonly offset: number

  constructor(problem: string, offset: number, field = 'q') {
    const message = `${problem} at offset ${offset}`
    super(`${field}: ${message}`, [{ field, message }])
    this.offset = offset
  }
}
