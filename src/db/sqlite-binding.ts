// The SQLite binding, chosen by the running Node. better-sqlite3 13 is built on
// Node-API and ships prebuilt binaries; 12 wraps Node's raw ObjectWrap, whose
// destructor aborts Node 24 when a statement is collected during teardown
// ("Assertion failed: (env) != nullptr": every process exit). But 13 no longer
// runs on Node 20 (it crashes on load), and Node 20 is still what some machines
// ship. So both are installed: 13 (as `better-sqlite3-napi`) on Node 22 and
// later, 12 on Node 20. Their API is the same; drop 12 with Node 20.
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

/** The first Node major that better-sqlite3 13 supports. */
const NAPI_BINDING_FROM_MAJOR = 22

const nodeMajor = Number(process.versions.node.split('.')[0])

/** Which installed package provides the binding in this process. */
export const SQLITE_BINDING_PACKAGE =
  nodeMajor >= NAPI_BINDING_FROM_MAJOR ? 'better-sqlite3-napi' : 'better-sqlite3'

/** better-sqlite3's Database class, from the package this Node runs. */
const SqliteDatabase = createRequire(import.meta.url)(
  SQLITE_BINDING_PACKAGE,
) as typeof BetterSqlite3
export default SqliteDatabase

export type SqliteConnection = BetterSqlite3.Database
export type SqliteStatement = BetterSqlite3.Statement
