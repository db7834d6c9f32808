// The background checkpointer's thread (checkpointer.ts): its own connection to
// the SQLite file, copying the WAL's frames into the database whenever asked. A
// PASSIVE checkpoint takes no lock that the writer waits for: it copies what no
// reader still needs while the writer goes on appending to the WAL.
import { parentPort, workerData } from 'node:worker_threads'
import SqliteDatabase from './sqlite-binding.js'
import type { CheckpointDone, CheckpointRequest } from './checkpointer.js'

const { path } = workerData as { path: string }
const sqlite = new SqliteDatabase(path, { fileMustExist: true })
// What the writer's connection syncs, so a checkpoint here is as durable as one there.
sqlite.pragma('synchronous = NORMAL')

parentPort!.on('message', (request: CheckpointRequest) => {
  if (request === 'close') {
    sqlite.close()
    parentPort!.close()
    return
  }
  let done: CheckpointDone = { error: null }
  try {
    sqlite.pragma('wal_checkpoint(PASSIVE)')
  } catch (error) {
    // Another process's checkpoint, or a lock held a moment: the next commit asks again.
    const code = (error as { code?: unknown }).code
    if (typeof code !== 'string' || !/^SQLITE_(BUSY|LOCKED)/.test(code))
      done = { error: (error as Error).message }
  }
  parentPort!.postMessage(done)
})
