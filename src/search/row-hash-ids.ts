// CSV row ids (`csv:` and 32 lowercase hex digits, sources/csv/row-id.ts) stay
// out of the SQLite trigram documents. Each such id holds 30 distinct random
// trigrams: indexing them cost a first import more than the description, payee
// and memo together (at a million rows, 8,171 against 11,591 rows/s for a raw
// insert of the same rows with and without them). A free-text or `id:` needle
// that could lie in such an id is looked for in the ids themselves instead:
// one scan of the document numbers' index (which holds the ids), only for
// needles made of hex digits, "s", "v" and ":" (numbers, "cafe", "fee"); a word
// such as "coffee" cannot lie in one and costs nothing more. Documents written before keep their ids: the
// scan finds the same rows again, and a union takes each once.
import { sql, type RawBuilder } from 'kysely'

/** The shape, as a SQLite GLOB (case-sensitive, like the ids). */
export const ROW_HASH_ID_GLOB = `csv:${'[0-9a-f]'.repeat(32)}`

/** The same shape as a regular expression (the test that the CSV source makes such ids). */
export const ROW_HASH_ID = /^csv:[0-9a-f]{32}$/

/**
 * Whether a lower-cased needle could lie in a row hash id: every character is
 * one of the id's ("csv:" and hex digits) and it is no longer than one.
 */
function mayLieInRowHashId(needle: string): boolean {
  return needle.length <= 36 && /^[0-9a-f:sv]+$/.test(needle)
}

/**
 * SQLite: the document numbers of the transactions whose id holds the
 * lower-cased `needle` (exact: an id holding it verbatim holds it ignoring
 * case), among the ids under `csv:`; null when no row hash id can hold it.
 */
export function rowHashIdNumbers(needle: string): RawBuilder<unknown> | null {
  if (!mayLieInRowHashId(needle)) return null
  // The numbers' index holds the ids: one scan of it, no row read.
  return sql`select t.search_n from transactions t indexed by transactions_search_n
    where t.search_n is not null and t.id >= 'csv:' and t.id < 'csv;' and instr(t.id, ${needle}) > 0`
}
