// PostgreSQL: the transactions' pages are filled to half, so that a re-sync's
// new version of each row (every sync refreshes `synced_at` on every row it
// reads again, SPEC 1.4) fits on the row's own page. Such an update is HOT:
// no index entry is written, the trigram GIN indexes' included, and the old
// version is pruned from the page by the next pass. Full pages sent every
// version to another page with a new entry in every index: an unchanged
// re-sync of 200,000 rows ran at 15,279 rows/s, and 12,728 the second time with
// the indexes bloating (583 MiB on disk), against 61,503 and 62,602 rows/s and
// 428 MiB at half (docs/performance.md, "Re-syncs on PostgreSQL: room on each
// page"). Only pages written from now on are filled to half; rows already there
// move to such pages as re-syncs rewrite them. SQLite rewrites a row in place.
import { sql, type Kysely } from 'kysely'
import type { MigrationContext } from './context.js'

export async function up(db: Kysely<unknown>, { dialect }: MigrationContext): Promise<void> {
  if (dialect !== 'postgres') return
  await sql`alter table transactions set (fillfactor = 50)`.execute(db)
}
