import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { Worker } from 'node:worker_threads'

/** The nice value of each thread of this process, by thread id (Linux). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    // Fields after the command's closing parenthesis; nice is the 19th field of the line.
    const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    nices.set(Number(tid), Number(fields[16]))
  }
  return nices
}

test(
  'lowerThisThreadPriority lowers the calling thread only',
  { skip: process.platform !== 'linux' && 'thread priorities are read from /proc' },
  async () => {
    const mainNice = threadNices().get(process.pid)!
    const moduleUrl = new URL('./worker-module.js', import.meta.url).href
    const worker = new Worker(
      `import(${JSON.stringify(moduleUrl)}).then(({ lowerThisThreadPriority }) => {
        const { parentPort } = require('node:worker_threads')
        const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop())
        parentPort.postMessage({ lowered: lowerThisThreadPriority(10), tid })
        // Alive until the test has read its priority (terminated then).
        parentPort.on('message', () => {})
      })`,
      { eval: true },
    )
    try {
      const { lowered, tid } = await new Promise<{ lowered: boolean; tid: number }>(
        (resolve, reject) => {
          worker.once('message', resolve)
          worker.once('error', reject)
        },
      )
      assert.equal(lowered, true)
      const nices = threadNices()
      assert.equal(nices.get(tid), Math.max(10, mainNice), 'the worker thread runs at nice 10')
      assert.equal(nices.get(process.pid), mainNice, 'the main thread keeps its priority')
    } finally {
      await worker.terminate()
    }
  },
)
