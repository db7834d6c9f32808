// Table types owned by the db folder (migration 0013-deferred-indexes).

/** An index dropped for a bulk load and not yet built again (deferred-indexes.ts). */
export interface DeferredIndexesTable {
  name: string
  /** The engine's own `create index` statement, read from its catalogue before the drop. */
  definition: string
  /** The table it indexes. */
  table_name: string
  deferred_at: string
}

export interface DbTables {
  deferred_indexes: DeferredIndexesTable
}
