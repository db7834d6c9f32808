// Compiles a parsed query into a database pre-filter over `transactions`. The
// filter only narrows: every transaction the matcher would accept passes it.
// Where a part is also *exact* (SQL accepts precisely what the matcher accepts)
// it says so, which lets NOT narrow too and lets the service count in SQL.
//
// Case: the matcher lower-cases with toLowerCase. The only non-ASCII characters
// whose lower case contains ASCII are U+0130 (→ "i̇") and U+212A (→ "k"), so a
// needle's runs of printable ASCII without "i" or "k" must appear, ASCII
// case-insensitively, in the stored text. Those runs are what SQL looks for.
import { sql, type RawBuilder, type SqlBool } from 'kysely'
import {
  buildsSearchDocuments,
  caseInsensitiveLike,
  comparesDecimalsExactly,
  needsPlannerHints,
} from '../db/dialect.js'
import type { DbExecutor } from '../db/schema.js'
import type { Bound, Interval, QueryNode } from './ast.js'
import { MAX_QUERY_TERMS } from './parse.js'
import { COMPARE_DECIMAL_SQL } from '../db/connect.js'
import { chunksOf } from '../db/bulk.js'
import { inList } from '../db/in-list.js'
import { rowHashIdNumbers } from './row-hash-ids.js'
import { amountBucketSql } from './amount-bucket.js'

export interface Narrowing {
  /** null: no narrowing (every row passes). */
  where: RawBuilder<SqlBool> | null
  /** SQL accepts exactly the rows the matcher accepts. */
  exact: boolean
  /** When `where` is `transactions.id in (<ids>)`: the subquery, so OR can union them. */
  ids?: RawBuilder<unknown>
  /**
   * The same test as a probe of the row's own rows in another table (a
   * correlated scalar subquery: SQLite turns EXISTS into a join with a bloom
   * filter built over the whole table). Used where few rows are tested: under a
   * NOT beside a selective part, and walking the date index for a page. An `in`
   * builds the whole set first, which costs far more there.
   */
  correlated?: RawBuilder<SqlBool>
  /**
   * SQLite: the same test read off the row's own columns (a text term's
   * document number among the matching ones). Cheaper than `where` where each
   * row is read anyway (a scan that tests rows one by one, a walk of the date
   * index), dearer where the rows come from an index that holds their id (an id
   * set driving an AND), which `where` then tests without reading the row.
   */
  rowTest?: RawBuilder<SqlBool>
  /**
   * PostgreSQL: the same rows as a union of row tests on `transactions`, each
   * found by an index of its own (free text: the row's own text, its labels',
   * its extensions', its account's name). A count pushes the rest of an AND
   * into every arm, which then tests each candidate on the row its index scan
   * read, instead of joining every member of the set back to its row.
   */
  arms?: RawBuilder<SqlBool>[]
}

export interface NarrowOptions {
  /**
   * SQLite: keep id sets from driving the plan (`+id`, or a probe per row where
   * the set has a correlated form), so that a page of a large set walks the
   * (date, id) index in order instead of sorting every member, and a search
   * within a few days reads just their rows (stream.ts withinFewDays). Right
   * for those only; a small set elsewhere is faster driven by its ids.
   */
  dateOrder?: boolean
  /**
   * false: leave id sets out (every row passes them). For streaming a huge set
   * page by page, where each page would rebuild the whole set.
   */
  idSets?: boolean
  /**
   * What makes free text and `account:` exact: the accounts and queued search
   * documents the matcher decided in JS (text-context.ts). Without it, free
   * text only narrows.
   */
  text?: TextContext | undefined
}

/**
 * Free text decided ahead of the SQL: which accounts' names hold a needle, and
 * which of the transactions whose search document is queued (stale or missing,
 * src/search/indexer.ts) match a text term. Both are decided by the matcher.
 */
export interface TextContext {
  /** Ids of the accounts whose name contains `needle` (lower-cased), as the matcher reads it. */
  accountsMatching(needle: string): readonly string[]
  /**
   * The queued transactions that `node` matches; null when the queue was too
   * long to decide here (free text then only narrows). Always [] where the
   * database keeps its own text indexes (PostgreSQL).
   */
  queuedMatching(node: TextNode): readonly string[] | null
  /**
   * SQLite: whether text term `node`'s needle is in the own text of a large
   * share of the rows (searchTuning.broadTextShare, on a sample), so that
   * testing every row costs less than gathering its matches.
   */
  broadText(node: TextNode): boolean
}

export type TextNode = Extract<QueryNode, { kind: 'text' | 'field_text' }>

const EVERY_ROW: Narrowing = { where: null, exact: false }

/** The most arms a narrowing keeps (Narrowing.arms): each is a scan of its own. */
const MAX_ARMS = 16

/**
 * The most id sets of an OR united in one compound SELECT: a wider OR unites
 * groups of this many, each a subquery of its own, so that no compound passes
 * SQLite's limit of 500 terms (a free-text term is up to five). The parser's
 * bound on terms (parse.ts) keeps the rest (the groups, the expression tree)
 * well inside the limits.
 */
export const MAX_NARROWED_ALTERNATIVES = 32

/** One union of id sets, in groups of MAX_NARROWED_ALTERNATIVES past that many. */
function unionOf(sets: RawBuilder<unknown>[]): RawBuilder<unknown> {
  const union = (items: RawBuilder<unknown>[]) => sql.join(items, sql` union `)
  if (sets.length <= MAX_NARROWED_ALTERNATIVES) return union(sets)
  return union(
    [...chunksOf(sets, MAX_NARROWED_ALTERNATIVES)].map(
      (group, i) => sql`select * from (${union(group)}) as ${sql.raw(`id_group${i}`)}`,
    ),
  )
}

/**
 * A query with more terms than the parser allows a client (only a rule stored
 * before that bound) is not narrowed at all, so no statement can outgrow a limit.
 */
export const MAX_NARROWED_TERMS = MAX_QUERY_TERMS

/** The terms of a query; stops counting past `limit`. Iterative. */
function termsOver(query: QueryNode, limit: number): boolean {
  let terms = 0
  const stack: QueryNode[] = [query]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.kind === 'and' || node.kind === 'or') stack.push(...node.items)
    else if (node.kind === 'not') stack.push(node.item)
    else if (node.kind !== 'all' && ++terms > limit) return true
  }
  return false
}
const MIN_SEGMENT = 3 // trigram indexes need three characters

function isPrintableAscii(needle: string): boolean {
  return /^[\x20-\x7e]*$/.test(needle)
}

/** A needle the trigram documents decide exactly: printable ASCII, three characters or more. */
export function isDocumentPhrase(needle: string): boolean {
  return needle.length >= MIN_SEGMENT && isPrintableAscii(needle)
}

/** Runs of the (lower-cased) needle that any match must contain verbatim, ignoring ASCII case. */
export function needleSegments(needle: string): string[] {
  return needle.split(/[^\x20-\x7e]|[ik%_\\"]/).filter((s) => s.length >= MIN_SEGMENT)
}

/**
 * A stored value whose toLowerCase equals a printable-ASCII operand holds only
 * ASCII and U+212A (U+0130 lower-cases to two characters, one not ASCII). So
 * for such an operand SQL's ASCII lower() after mapping U+212A to "k" is exact.
 * The same expression is indexed in 0004-search; keep them identical.
 */
const isCaseSafe = isPrintableAscii

const FOLDED_VALUE = sql`lower(replace(k.value, '\u212A', 'k'))`

function and(parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` and `)})`
}

function or(parts: RawBuilder<SqlBool>[]): RawBuilder<SqlBool> {
  return parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` or `)})`
}

export class Narrower {
  /** LIKE ignoring ASCII case on this engine. */
  private readonly like: RawBuilder<unknown>
  private readonly plannerHints: boolean
  /** Free text goes through the FTS5 documents (SQLite) rather than trigram indexes (PostgreSQL). */
  private readonly searchDocuments: boolean
  private readonly exactDecimals: boolean

  constructor(
    private readonly db: DbExecutor,
    private readonly options: NarrowOptions = {},
  ) {
    this.like = caseInsensitiveLike(db)
    this.plannerHints = needsPlannerHints(db)
    this.searchDocuments = buildsSearchDocuments(db)
    this.exactDecimals = comparesDecimalsExactly(db)
  }

  /** Every segment appears in `expression`, ignoring ASCII case. */
  private likeAll(expression: RawBuilder<unknown>, segments: string[]): RawBuilder<SqlBool> {
    return and(segments.map((s) => sql<SqlBool>`${expression} ${this.like} ${`%${s}%`}`))
  }

  /** A narrowing by a subquery of transaction ids (and its other forms, if any). */
  private idsIn(
    ids: RawBuilder<unknown>,
    exact: boolean,
    correlated?: RawBuilder<SqlBool>,
    rowTest?: RawBuilder<SqlBool>,
  ): Narrowing {
    if (this.options.idSets === false) return EVERY_ROW
    if (!this.options.dateOrder) {
      return { where: sql<SqlBool>`transactions.id in (${ids})`, exact, ids, correlated, rowTest }
    }
    if (!this.plannerHints) {
      // PostgreSQL walks the date index by itself when a row's own test is cheap.
      return {
        where: correlated ?? sql<SqlBool>`transactions.id in (${ids})`,
        exact,
        ids,
        correlated,
      }
    }
    // Walking the date index, a probe per row beats building the whole set first.
    return {
      where: correlated ?? rowTest ?? sql<SqlBool>`+transactions.id in (${ids})`,
      exact,
      ids,
      correlated,
    }
  }

  /**
   * `narrowing` with `arms`, where it narrows at all (an id set left out lets
   * every row pass) and is not for walking the date index (whose page tests
   * each row it walks).
   */
  private withArms(narrowing: Narrowing, arms: RawBuilder<SqlBool>[] | undefined): Narrowing {
    if (!arms || arms.length > MAX_ARMS || !narrowing.where || this.options.dateOrder)
      return narrowing
    return { ...narrowing, arms }
  }

  /** The narrowing of a whole query. */
  narrowQuery(query: QueryNode): Narrowing {
    return termsOver(query, MAX_NARROWED_TERMS) ? EVERY_ROW : this.narrow(query)
  }

  narrow(node: QueryNode): Narrowing {
    switch (node.kind) {
      case 'all':
        return { where: null, exact: true }
      case 'and': {
        const parts = node.items.map((item) => this.narrow(item))
        // Without an id set to drive it, the AND reads each row it tests: a
        // NOT of a text term then tests the row's own document number.
        const drivenByIds = parts.some((p) => p.ids)
        const wheres = parts.flatMap((p) =>
          p.where ? [!drivenByIds && p.rowTest ? p.rowTest : p.where] : [],
        )
        // Arms of two parts combine pairwise (own text and own text is one scan
        // of both trigram conditions), while there are few; the rest of the
        // parts are tested on each arm's rows.
        let arms: RawBuilder<SqlBool>[] | undefined
        const rest: RawBuilder<SqlBool>[] = []
        for (const part of parts) {
          if (part.arms && (arms?.length ?? 1) * part.arms.length <= MAX_ARMS) {
            arms = arms ? arms.flatMap((a) => part.arms!.map((b) => and([a, b]))) : part.arms
          } else if (part.where) rest.push(part.where)
        }
        return this.withArms(
          { where: wheres.length === 0 ? null : and(wheres), exact: parts.every((p) => p.exact) },
          arms?.map((arm) => and([arm, ...rest])),
        )
      }
      case 'or': {
        const parts = node.items.map((item) => this.narrow(item))
        const exact = parts.every((p) => p.exact)
        // One branch that cannot narrow lets every row through.
        if (parts.some((p) => p.where === null)) return { where: null, exact }
        // Only alternatives that all have arms: an arm that is a plain row test
        // (`-starbucks`) would read most of the table into the union.
        const arms = parts.every((p) => p.arms) ? parts.flatMap((p) => p.arms!) : undefined
        // One IN over a UNION uses each branch's index; an OR of INs scans every row.
        if (parts.every((p) => p.ids))
          return this.withArms(
            this.idsIn(
              unionOf(parts.map((p) => p.ids!)),
              exact,
              parts.every((p) => p.correlated) ? or(parts.map((p) => p.correlated!)) : undefined,
            ),
            arms,
          )
        return this.withArms({ where: or(parts.map((p) => p.where!)), exact }, arms)
      }
      case 'not':
        return this.not(this.narrow(node.item))
      case 'text':
        return this.freeText(node)
      case 'field_text':
        return this.fieldText(node)
      case 'exact':
        return {
          where: sql<SqlBool>`${sql.ref(`transactions.${node.field}`)} = ${node.value}`,
          exact: true,
        }
      case 'amount':
        return this.amount(node.interval)
      case 'instant':
        return this.instant(node.field, node.interval)
      case 'pending':
        return { where: sql<SqlBool>`transactions.pending = ${node.value ? 1 : 0}`, exact: true }
      case 'label':
      case 'ext':
        return this.keyed(node.kind, node.key, node.op, node.value)
      case 'rel':
        // Index: relationships_kind; relationships_pk for a target.
        return this.idsIn(
          sql`select r.transaction_id from relationships r where r.kind = ${node.relKind}${
            node.target === undefined ? sql`` : sql` and r.target_id = ${node.target}`
          }`,
          true,
        )
      case 'related':
        // Index: relationships_target one way, relationships_pk the other.
        return this.idsIn(
          sql`select r.transaction_id from relationships r where r.target_id = ${node.id} union select r.target_id from relationships r where r.transaction_id = ${node.id}`,
          true,
        )
    }
  }

  private not(inner: Narrowing): Narrowing {
    if (!inner.exact) return EVERY_ROW
    // NOT of "every row" is no row; exact predicates never yield NULL.
    if (!inner.where) return { where: sql<SqlBool>`1 = 0`, exact: true }
    // The per-row form, where there is one: PostgreSQL runs a NOT IN whose set
    // outgrows work_mem as a subquery per row (minutes at 5M rows).
    return {
      where: sql<SqlBool>`not ${inner.correlated ?? inner.where}`,
      exact: true,
      rowTest: inner.rowTest && !inner.correlated ? sql<SqlBool>`not ${inner.rowTest}` : undefined,
    }
  }

  // Free text: the transaction's own text, its labels and extensions (one
  // trigram index per engine, see 0004-search), or its account's name.
  private freeText(node: Extract<QueryNode, { kind: 'text' }>): Narrowing {
    const { needle } = node
    if (this.isBroad(node)) return this.broadFreeText(needle)
    const exact = this.exactText(node)
    if (exact) {
      const byAccount = this.accountsIn(needle)
      return this.idsIn(
        sql.join(
          [
            exact.ids,
            ...(byAccount ? [sql`select t2.id from transactions t2 where ${byAccount('t2')}`] : []),
          ],
          sql` union `,
        ),
        true,
        undefined,
        or([exact.ofRow, ...(byAccount ? [byAccount('transactions')] : [])]),
      )
    }
    const segments = needleSegments(needle)
    const accounts = this.accountsIn(needle)
    if (!this.searchDocuments && accounts !== undefined && isPrintableAscii(needle)) {
      const text = exactTextSets(needle, segments, (e, s) => this.likeAll(e, s), true)
      const ofAccount = accounts ? [accounts('transactions')] : []
      return this.withArms(
        this.idsIn(
          sql.join(
            [
              ...text.ids,
              ...(accounts ? [sql`select t2.id from transactions t2 where ${accounts('t2')}`] : []),
            ],
            sql` union `,
          ),
          true,
          or([text.ofRow, ...ofAccount]),
        ),
        [...text.arms, ...ofAccount],
      )
    }
    if (segments.length === 0) return EVERY_ROW
    const byAccount = sql`select t2.id from transactions t2 where t2.account_id in (select a.id from accounts a where ${this.likeAll(sql`a.name`, segments)})`
    if (this.searchDocuments) {
      const phrase = segments.map((s) => `"${s}"`).join(' AND ')
      return this.idsIn(
        sql`${SEARCH_DOCUMENT_IDS(withRowHashIds(DOCUMENT_NUMBERS(phrase), node))} union ${byAccount}`,
        false,
      )
    }
    return this.idsIn(
      sql`select t1.id from transactions t1 where ${this.likeAll(TRANSACTION_TEXT_PG('t1'), segments)} union select l.transaction_id from transaction_labels l where ${this.likeAll(LABEL_TEXT_PG, segments)} union select e.transaction_id from transaction_extensions e where ${this.likeAll(EXTENSION_TEXT_PG, segments)} union ${byAccount}`,
      false,
    )
  }

  /** SQLite: a text term most rows hold (TextContext.broadText), tested row by row. */
  private isBroad(node: TextNode): boolean {
    return this.searchDocuments && (this.options.text?.broadText(node) ?? false)
  }

  /**
   * SQLite: free text that a large share of the ledger holds (TextContext.broadText),
   * tested on each row rather than gathered through the trigram documents, whose
   * id set would then be most of the ledger, built once for the count and again
   * for the page (seconds at a million rows). Counting reads every row's own
   * text (the labels' and extensions' matches gathered once); a page walks the
   * date index and probes the rows it walks. Exact like the documents, and
   * without them: a queued document does not matter here.
   */
  private broadFreeText(needle: string): Narrowing {
    const sets = exactTextSets(needle, [], (e, s) => this.likeAll(e, s), false)
    const accounts = this.accountsIn(needle)
    const ofAccount = accounts ? [accounts('transactions')] : []
    return {
      // Walking the date index, or streaming page by page: a probe per row walked.
      where: or([
        ...(this.options.dateOrder || this.options.idSets === false ? [sets.ofRow] : sets.arms),
        ...ofAccount,
      ]),
      exact: true,
    }
  }

  /**
   * `account_id in (...)` of the accounts whose name holds the needle, decided
   * by the matcher (text context); null when none does. Undefined without a
   * text context.
   */
  private accountsIn(needle: string): ((table: string) => RawBuilder<SqlBool>) | null | undefined {
    if (!this.options.text) return undefined
    const ids = this.options.text.accountsMatching(needle)
    if (ids.length === 0) return null
    return (table) => inList(this.db, `${table}.account_id`, ids)
  }

  /**
   * SQLite: the ids of the transactions a text term matches, exactly: its
   * phrase in the FTS5 trigram documents of the transactions not queued, plus
   * the queued ones the matcher decided. Null where that is not exact.
   *
   * A trigram phrase of printable ASCII is a substring test that ignores ASCII
   * case, which is the matcher's toLowerCase().includes() on any text where no
   * character outside ASCII folds into ASCII differently in the two. The only
   * such characters are U+0130 (JS: "i̇", FTS5: unchanged) and U+017F (JS:
   * unchanged, FTS5: "s"); U+212A folds to "k" in both. The documents hold
   * them rewritten (DOCUMENT_TEXT_REWRITES in indexer.ts), and hold each
   * extension's key and text on lines of their own, so no match spans two
   * strings the matcher reads apart. Free text is looked for in both documents
   * (text and keys), a field in the text's.
   *
   * Also as a test of the row at hand (`ofRow`, Narrowing.rowTest): its
   * document number among the matching ones, a set of numbers built once,
   * which spares the lookup of each match's id (a NOT of 100,000 matches over
   * a million rows read one by one: 0.55 s instead of 1 s). Never NULL.
   */
  private exactText(
    node: TextNode,
  ): { ids: RawBuilder<unknown>; ofRow: RawBuilder<SqlBool> } | null {
    const { text } = this.options
    if (!text || !this.searchDocuments || !isDocumentPhrase(node.needle)) return null
    const queued = text.queuedMatching(node)
    if (queued === null) return null
    const phrase = `"${node.needle.replaceAll('"', '""')}"`
    const indexed =
      node.kind === 'field_text'
        ? TEXT_NUMBERS(`${node.field} : ${phrase}`)
        : DOCUMENT_NUMBERS(phrase)
    const found = withRowHashIds(indexed, node)
    const documents = sql`select t.id from transactions t where t.search_n in (${found}) and t.id not in (${QUEUED_IDS})`
    // A test of the row, never an index to drive the plan (a page walks the
    // date index): `+`, and no `is not null`, which the partial index on the
    // number would take up. A row without a number is false, not NULL.
    const documented = sql<SqlBool>`(coalesce(+transactions.search_n in (${found}), 0) and transactions.id not in (${QUEUED_IDS}))`
    if (queued.length === 0) return { ids: documents, ofRow: documented }
    const queuedIds = sql`select value from json_each(${JSON.stringify(queued)})` // SQLite only
    return {
      ids: sql`${documents} union ${queuedIds}`,
      ofRow: or([documented, sql<SqlBool>`transactions.id in (${queuedIds})`]),
    }
  }

  private fieldText(node: Extract<QueryNode, { kind: 'field_text' }>): Narrowing {
    const { field, needle } = node
    if (field === 'account') {
      const byAccount = this.accountsIn(needle)
      if (byAccount === null) return { where: sql<SqlBool>`1 = 0`, exact: true }
      if (byAccount) return { where: byAccount('transactions'), exact: true }
    } else {
      // A needle most rows hold: a test of the row's own column (broadFreeText).
      if (this.isBroad(node)) return { where: ownTextHolds(node), exact: true }
      const exact = this.exactText(node)
      if (exact) return this.idsIn(exact.ids, true, undefined, exact.ofRow)
    }
    const segments = needleSegments(needle)
    if (!this.searchDocuments && this.options.text && isPrintableAscii(needle)) {
      // Never NULL (a missing memo): an exact test may sit under a NOT.
      const confirm = holdsNeedle(sql.ref(`transactions.${field}`), needle, true)
      return {
        where:
          segments.length === 0
            ? confirm
            : sql<SqlBool>`(${this.likeAll(TRANSACTION_TEXT_PG('transactions'), segments)} and ${confirm})`,
        exact: true,
      }
    }
    if (segments.length === 0) return EVERY_ROW
    if (field === 'account') {
      return {
        where: sql<SqlBool>`transactions.account_id in (select a.id from accounts a where ${this.likeAll(sql`a.name`, segments)})`,
        exact: false,
      }
    }
    const column = this.likeAll(sql.ref(`transactions.${field}`), segments)
    if (this.searchDocuments) {
      // The trigram index finds the rows; LIKE on the column then keeps this field's.
      const phrase = segments.map((s) => `${field} : "${s}"`).join(' AND ')
      return {
        where: sql<SqlBool>`(transactions.id in (${SEARCH_DOCUMENT_IDS(withRowHashIds(TEXT_NUMBERS(phrase), node))}) and ${column})`,
        exact: false,
      }
    }
    return {
      where: sql<SqlBool>`(${this.likeAll(TRANSACTION_TEXT_PG('transactions'), segments)} and ${column})`,
      exact: false,
    }
  }

  private amount(interval: Interval): Narrowing {
    if (this.exactDecimals) {
      // numeric is exact, so this agrees with decimal.ts (index: transactions_amount_numeric).
      return {
        where: intervalSql(
          sql`cast(transactions.amount as numeric)`,
          interval,
          (v) => sql`cast(${v} as numeric)`,
        ),
        exact: true,
      }
    }
    // SQLite has no exact decimal. A double decides wherever the amount is
    // clearly on one side of a bound; within a band around the bound, far
    // wider than a double's rounding of any 64-character amount,
    // coffer_compare_decimal (decimal.ts, the matcher's own comparison)
    // decides. Each test of the double goes with the same test of its bucket
    // (amount-bucket.ts), which the double's implies, so that the index of
    // buckets (transactions_amount_bucket) finds the rows and holds the double
    // to test; a bucket either side is added, so that a rounding of log10 at a
    // power of ten cannot leave a row out. The band's rows are a subquery of
    // rowids read from that index first, so that the outer test reads the
    // index alone and a count never visits the table.
    const real = sql`cast(transactions.amount as real)`
    const parts: RawBuilder<SqlBool>[] = []
    const side = (bound: Bound, above: boolean) => {
      const v = Number(bound.value)
      const compare = sql.raw(`${above ? '>' : '<'}${bound.inclusive ? '=' : ''}`)
      const exactly = (amount: RawBuilder<unknown>) =>
        sql<SqlBool>`${sql.raw(COMPARE_DECIMAL_SQL)}(${amount}, ${bound.value}) ${compare} 0`
      if (!Number.isFinite(v)) return parts.push(exactly(sql`transactions.amount`))
      const slack = (Math.abs(v) + 1) * 1e-9
      const [low, high] = [v - slack, v + slack]
      const inBand = sql<SqlBool>`${ROW_BUCKET('c')} between ${bucketOf(low)} - 1 and ${bucketOf(high)} + 1 and cast(c.amount as real) between ${low} and ${high}`
      const band = sql<SqlBool>`transactions.rowid in (select b.rowid from transactions b where b.rowid in (select c.rowid from transactions c where ${inBand}) and ${exactly(sql`b.amount`)})`
      // Not when walking the date index: the buckets would drive the plan.
      const bucket = this.options.dateOrder
        ? sql<SqlBool>`1`
        : above
          ? sql<SqlBool>`${ROW_BUCKET('transactions')} >= ${bucketOf(low)} - 1`
          : sql<SqlBool>`${ROW_BUCKET('transactions')} <= ${bucketOf(high)} + 1`
      parts.push(
        above
          ? sql<SqlBool>`${bucket} and ${real} >= ${low} and (${real} > ${high} or ${band})`
          : sql<SqlBool>`${bucket} and ${real} <= ${high} and (${real} < ${low} or ${band})`,
      )
    }
    if (interval.min) side(interval.min, true)
    if (interval.max) side(interval.max, false)
    if (parts.length === 0)
      return { where: interval.outside ? sql<SqlBool>`1 = 0` : null, exact: true }
    const inside = sql<SqlBool>`(${sql.join(parts, sql` and `)})`
    return { where: interval.outside ? sql<SqlBool>`not ${inside}` : inside, exact: true }
  }

  private instant(field: 'date' | 'synced_at', interval: Interval): Narrowing {
    const column = sql.ref(`transactions.${field}`)
    const where = intervalSql(column, interval, (v) => sql`${v}`)
    // synced_at may be NULL; a NULL never matches, and must never reach a NOT as NULL.
    return {
      where:
        field === 'date' || !where ? where : sql<SqlBool>`(${column} is not null and ${where})`,
      exact: true,
    }
  }

  private keyed(
    kind: 'label' | 'ext',
    key: string,
    op: 'has' | 'eq' | 'ne' | 'contains',
    operand: string | undefined,
  ): Narrowing {
    const table = kind === 'label' ? sql`transaction_labels` : sql`transaction_extensions`
    // Index: the (key, folded value) indexes of 0004-search.
    const rows = (condition: RawBuilder<unknown> | null) =>
      sql`select k.transaction_id from ${table} k where k.key = ${key}${condition ? sql` and ${condition}` : sql``}`
    // Exact sets; the correlated form probes the (transaction_id, key) primary key.
    const exactSet = (condition: RawBuilder<unknown> | null): Narrowing =>
      this.idsIn(
        rows(condition),
        true,
        sql<SqlBool>`((select 1 from ${table} k where k.transaction_id = transactions.id and k.key = ${key}${condition ? sql` and ${condition}` : sql``}) is not null)`,
      )
    if (op === 'has') return exactSet(null)
    if (op === 'contains') {
      // A stored extension value is compact JSON: a string's text appears quoted
      // and escaped. Segments hold no quote or backslash, so they still appear.
      const segments = needleSegments(operand!)
      return this.idsIn(rows(segments.length ? this.likeAll(sql`k.value`, segments) : null), false)
    }
    // Equality needs the key; it is exact when SQL's ASCII lower() agrees with toLowerCase.
    const equal = isCaseSafe(operand!) ? valueEquals(kind, operand!) : null
    if (op === 'eq') return equal ? exactSet(equal) : this.idsIn(rows(null), false)
    return equal ? this.not(exactSet(equal)) : EVERY_ROW
  }
}

function valueEquals(kind: 'label' | 'ext', operand: string): RawBuilder<unknown> {
  if (kind === 'label') return sql`${FOLDED_VALUE} = ${operand}`
  // A JSON string equals by its text (stored as JSON.stringify), anything else by its JSON.
  return sql`${FOLDED_VALUE} in (${operand}, ${JSON.stringify(operand)})`
}

function intervalSql(
  column: RawBuilder<unknown>,
  interval: Interval,
  bound: (value: string) => RawBuilder<unknown>,
): RawBuilder<SqlBool> | null {
  const parts: RawBuilder<SqlBool>[] = []
  if (interval.min)
    parts.push(
      sql<SqlBool>`${column} ${interval.min.inclusive ? sql`>=` : sql`>`} ${bound(interval.min.value)}`,
    )
  if (interval.max)
    parts.push(
      sql<SqlBool>`${column} ${interval.max.inclusive ? sql`<=` : sql`<`} ${bound(interval.max.value)}`,
    )
  if (parts.length === 0) return interval.outside ? sql<SqlBool>`1 = 0` : null
  return interval.outside ? sql<SqlBool>`not ${and(parts)}` : and(parts)
}

/** SQLite: the numbers of the text documents that match the FTS5 query (columns allowed). */
const TEXT_NUMBERS = (query: string) =>
  sql`select rowid from search_text where search_text match ${query}`

/**
 * SQLite: the numbers of the documents, text or keys, that match the FTS5 query:
 * the parts of one needle lie in one string, so in one of the two documents.
 */
const DOCUMENT_NUMBERS = (phrase: string) =>
  sql`${TEXT_NUMBERS(phrase)} union select rowid from search_keys where search_keys match ${phrase}`

/**
 * SQLite: the document numbers `numbers` selects for a text term, plus those
 * of the row hash ids that hold its needle where the term reads ids: the
 * documents do not hold those ids (row-hash-ids.ts).
 */
function withRowHashIds(numbers: RawBuilder<unknown>, node: TextNode): RawBuilder<unknown> {
  const readsIds = node.kind === 'text' || node.field === 'id'
  const inIds = readsIds ? rowHashIdNumbers(node.needle) : null
  return inIds ? sql`${numbers} union ${inIds}` : numbers
}

/** The bucket of a row's amount, as the index transactions_amount_bucket holds it. */
const ROW_BUCKET = (table: string) => sql.raw(amountBucketSql(`cast(${table}.amount as real)`))

/** The bucket of a double bound, by the same SQL as the rows' (the parameter repeated). */
function bucketOf(value: number): RawBuilder<unknown> {
  const marker = '\u0000'
  return sql`(${sql.join(
    amountBucketSql(marker)
      .split(marker)
      .map((text) => sql.raw(text)),
    sql`${value}`,
  )})`
}

/**
 * SQLite: the transactions queued for (re)indexing (src/search/indexer.ts),
 * whole or their keys alone: a document may be missing or stale.
 */
export const QUEUED_IDS = sql`select transaction_id from search_pending union select transaction_id from search_keys_pending`

/**
 * SQLite: the transactions of the documents `numbers` selects, plus every
 * transaction still queued: it stays a candidate until rebuilt.
 */
const SEARCH_DOCUMENT_IDS = (numbers: RawBuilder<unknown>) =>
  sql`select t.id from transactions t where t.search_n in (${numbers}) union ${QUEUED_IDS}`

// PostgreSQL trigram indexes are on these expressions (0004-search); the query
// must repeat them verbatim for the planner to use the index.
const TRANSACTION_TEXT_PG = (table: string) =>
  sql`(coalesce(${sql.ref(`${table}.description`)}, '') || ' ' || coalesce(${sql.ref(`${table}.payee`)}, '') || ' ' || coalesce(${sql.ref(`${table}.memo`)}, '') || ' ' || ${sql.ref(`${table}.id`)})`
const LABEL_TEXT_PG = sql`(l.key || ':' || l.value)`
const EXTENSION_TEXT_PG = sql`(e.key || ' ' || e.value)`

/**
 * A text as the matcher lower-cases it, for a printable-ASCII needle. lower()
 * lowers ASCII only (SQLite without ICU; PostgreSQL under the C collation); of
 * everything else, JS lower-cases only U+0130 ("i̇") and U+212A ("k") into
 * something holding ASCII, so those two are rewritten first. Any other
 * character lower-cases to text without ASCII in JS and stays itself here:
 * neither can be part of a match.
 */
function folded(expression: RawBuilder<unknown>, postgres: boolean): RawBuilder<unknown> {
  const rewritten = sql`replace(replace(${expression}, '\u0130', 'i\u0307'), '\u212A', 'k')`
  return postgres ? sql`lower(${rewritten} collate "C")` : sql`lower(${rewritten})`
}

/**
 * An extension value as the matcher reads it (extensionText): a string's own
 * text, anything else its stored compact JSON. PostgreSQL text cannot hold
 * U+0000, so there its escape becomes U+0001 first: neither can be part of a
 * printable-ASCII match. SQLite's text holds it as it is.
 */
const EXTENSION_VALUE_TEXT_PG = sql`(case when left(e.value, 1) = '"' then replace(e.value, '\\u0000', '\\u0001')::json #>> '{}' else e.value end)`
const EXTENSION_VALUE_TEXT_SQLITE = sql`(case when substr(e.value, 1, 1) = '"' then e.value ->> '$' else e.value end)`

type LikeAll = (expression: RawBuilder<unknown>, segments: string[]) => RawBuilder<SqlBool>

/** The longest LIKE pattern holdsNeedle writes; SQLite's own limit is 50,000 bytes. */
const MAX_LIKE_PATTERN = 10_000

/** The columns of its own row that free text reads (match.ts freeText). */
const OWN_TEXT_COLUMNS = ['description', 'payee', 'memo', 'id']

/**
 * SQLite: whether the row's own text holds a text term's needle: the columns
 * free text reads on the row itself, or the term's field. (Free text also reads
 * the account's name, labels and extensions: broadFreeText adds those.)
 */
export function ownTextHolds(node: TextNode): RawBuilder<SqlBool> {
  const columns = node.kind === 'text' ? OWN_TEXT_COLUMNS : [node.field]
  return or(columns.map((c) => holdsNeedle(sql.ref(`transactions.${c}`), node.needle, false)))
}

/**
 * Whether a text holds a printable-ASCII needle as the matcher reads it
 * (folded); never NULL. On SQLite a LIKE on the text as stored decides every
 * text without the two rewritten characters (LIKE ignores ASCII case, as lower()
 * does, and the rewrites leave every ASCII run in place), at half the cost of
 * folding each one; only a text holding one of them is folded.
 */
function holdsNeedle(
  expression: RawBuilder<unknown>,
  needle: string,
  postgres: boolean,
): RawBuilder<SqlBool> {
  if (postgres) return sql<SqlBool>`coalesce(strpos(${folded(expression, true)}, ${needle}), 0) > 0`
  const text = sql`coalesce(${expression}, '')`
  const foldedHolds = sql<SqlBool>`instr(${folded(text, false)}, ${needle}) > 0`
  const pattern = `%${needle.replace(/[\\%_]/g, '\\$&')}%`
  // SQLite refuses a LIKE pattern past 50,000 bytes (SQLITE_MAX_LIKE_PATTERN_LENGTH).
  if (pattern.length > MAX_LIKE_PATTERN) return foldedHolds
  return sql<SqlBool>`(${text} like ${pattern} escape '\\' or (instr(${text}, '\u0130') + instr(${text}, '\u212A') > 0 and ${foldedHolds}))`
}

/**
 * The exact tests of a printable-ASCII needle (folded; never NULL) on a
 * transaction's own text, a label and an extension. On PostgreSQL each is led
 * by the trigram condition that lets an index find its candidates (where the
 * needle has a run the indexes can use); SQLite passes no segments and tests
 * the rows it is given.
 */
function exactTextTests(needle: string, segments: string[], likeAll: LikeAll, postgres: boolean) {
  const holds = (expression: RawBuilder<unknown>) => holdsNeedle(expression, needle, postgres)
  const indexed = (expression: RawBuilder<unknown>) =>
    segments.length === 0 ? [] : [likeAll(expression, segments)]
  return {
    own: (table: string) =>
      and([
        ...indexed(TRANSACTION_TEXT_PG(table)),
        or(OWN_TEXT_COLUMNS.map((c) => holds(sql.ref(`${table}.${c}`)))),
      ]),
    // The line key:value holds the key and the value: the matcher's three tests in one.
    label: and([...indexed(LABEL_TEXT_PG), holds(LABEL_TEXT_PG)]),
    extension: and([
      ...indexed(EXTENSION_TEXT_PG),
      or([
        holds(sql`e.key`),
        holds(postgres ? EXTENSION_VALUE_TEXT_PG : EXTENSION_VALUE_TEXT_SQLITE),
      ]),
    ]),
  }
}

/**
 * A printable-ASCII needle in a transaction's own text, labels or
 * extensions, exactly as the matcher decides, in the three forms a narrowing
 * carries (Narrowing): the ids of the transactions that hold it (one select
 * each); the same sets as row tests on `transactions` (its own text, and
 * membership in each of the other two: Narrowing.arms); and the test of the row
 * at hand, where the planner may turn each EXISTS into one hashed set, which the
 * trigram condition lets an index build.
 */
function exactTextSets(needle: string, segments: string[], likeAll: LikeAll, postgres: boolean) {
  const tests = exactTextTests(needle, segments, likeAll, postgres)
  const labels = sql`select l.transaction_id from transaction_labels l where ${tests.label}`
  const extensions = sql`select e.transaction_id from transaction_extensions e where ${tests.extension}`
  return {
    ids: [sql`select t1.id from transactions t1 where ${tests.own('t1')}`, labels, extensions],
    arms: [
      tests.own('transactions'),
      sql<SqlBool>`transactions.id in (${labels})`,
      sql<SqlBool>`transactions.id in (${extensions})`,
    ],
    ofRow: or([
      tests.own('transactions'),
      sql<SqlBool>`exists (select 1 from transaction_labels l where l.transaction_id = transactions.id and ${tests.label})`,
      sql<SqlBool>`exists (select 1 from transaction_extensions e where e.transaction_id = transactions.id and ${tests.extension})`,
    ]),
  }
}
