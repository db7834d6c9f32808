// The dispatcher's place in the event log, kept in the database so that a restart
// neither loses events nor floods receivers with old ones (SPEC 6.3, CONTRACT 6).
import type { DbExecutor } from '../db/schema.js'

const CURSOR_ID = 'dispatcher'

/** The stored sequence, or null before the dispatcher first ran. */
export async function loadCursor(db: DbExecutor): Promise<number | null> {
  const row = await db
    .selectFrom('webhook_cursor')
    .select('sequence')
    .where('id', '=', CURSOR_ID)
    .executeTakeFirst()
  return row ? Number(row.sequence) : null
}

export async function saveCursor(db: DbExecutor, sequence: number, now: string): Promise<void> {
  await db
    .insertInto('webhook_cursor')
    .values({ id: CURSOR_ID, sequence, updated_at: now })
    .onConflict((oc) => oc.column('id').doUpdateSet({ sequence, updated_at: now }))
    .execute()
}
