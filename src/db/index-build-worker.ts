// Builds deferred indexes (deferred-indexes.ts) on a connection of its own in a
// worker thread: a CREATE INDEX over a million rows sorts for seconds inside
// one synchronous SQLite call, which on the service's connection would hold the
// event loop (every request, the health check) that long. The write lock is
// SQLite's either way; the main thread's writers wait for it as they wait for
// another process. One thread and connection serve a whole build: each index
// name posted is built and answered in turn, and null closes.
import { parentPort, workerData } from 'node:worker_threads'
import { prepareSqliteConnection } from './connect.js'
import SqliteDatabase, { type SqliteConnection } from './sqlite-binding.js'

export interface IndexBuildSetup {
  path: string
}

/** Posted to the thread: the next index to build, or null to close (answered once closed). */
export type IndexBuildRequest = string | null

export type IndexBuildResult = { built: boolean } | { error: string }

/** How long the build waits for the write lock (a unit of the service's in front of it). */
const LOCK_WAIT_MS = 60_000

/**
 * The build connection's page cache, in KiB: small, since a build reads the
 * table once in order and writes the index in order, so a cache holds little it
 * reads again; the sort's memory is sized from it (runs of 8 MiB, merged). A
 * million-row first import built its six indexes in 6.6-7.6 s against 8.9-10.1 s
 * with the usual 32 MiB, and its peak RSS fell by 20-70 MiB (docs/performance.md,
 * "Memory of an import"); a bulk-sized cache built no faster and cost 60 MiB more.
 */
const INDEX_BUILD_CACHE_KIB = 8 * 1024

function build(conn: SqliteConnection, name: string): IndexBuildResult {
  try {
    conn.exec('begin immediate')
    try {
      // Read under the write lock: another process may have built it meanwhile.
      const row = conn
        .prepare('select definition from deferred_indexes where name = ?')
        .get(name) as { definition: string } | undefined
      if (row) {
        const exists = conn
          .prepare(`select 1 from sqlite_master where type = 'index' and name = ?`)
          .get(name)
        if (!exists) conn.exec(row.definition)
        conn.prepare('delete from deferred_indexes where name = ?').run(name)
      }
      conn.exec('commit')
      return { built: row !== undefined }
    } catch (error) {
      if (conn.inTransaction) conn.exec('rollback')
      throw error
    }
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

const { path } = workerData as IndexBuildSetup
const conn = new SqliteDatabase(path)
prepareSqliteConnection(conn)
conn.pragma(`cache_size = -${INDEX_BUILD_CACHE_KIB}`)
conn.pragma(`busy_timeout = ${LOCK_WAIT_MS}`)
// One helper thread for CREATE INDEX's sort: the rest of the service mostly
// waits for the build (1.1-1.2x faster over seven indexes of a million rows).
conn.pragma('threads = 1')
parentPort!.on('message', (request: IndexBuildRequest) => {
  if (request === null) {
    conn.close()
    parentPort!.postMessage({ built: false } satisfies IndexBuildResult)
    parentPort!.close()
    return
  }
  parentPort!.postMessage(build(conn, request))
})
