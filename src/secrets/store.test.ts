import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { FileSecretStore } from './store.js'

test('the file store keeps values in a 0600 file, shared by every instance over it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-secrets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'nested', 'secrets.json')
  const store = new FileSecretStore(path)
  assert.equal(await store.get('a'), null)
  await Promise.all([store.set('a', 'one'), store.set('b', 'two')])
  assert.equal(statSync(path).mode & 0o777, 0o600)
  assert.equal(statSync(join(dir, 'nested')).mode & 0o777, 0o700)
  const other = new FileSecretStore(path)
  assert.equal(await other.get('a'), 'one')
  assert.equal(await other.get('b'), 'two')
  await other.delete('a')
  assert.equal(await store.get('a'), null)
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { b: 'two' })
  assert.equal(statSync(path).mode & 0o777, 0o600)
  // Names of the object prototype are not secrets.
  assert.equal(await store.get('constructor'), null)
})

test('a corrupt file is an error that does not quote the file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-secrets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'secrets.json')
  const { writeFileSync } = await import('node:fs')
  writeFileSync(path, 'not json sekrit-value')
  await assert.rejects(new FileSecretStore(path).get('x'), (error: Error) => {
    assert.ok(!error.message.includes('sekrit'))
    return true
  })
})

test('update is a read-modify-write: concurrent updates of one secret all land', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'coffer-secrets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const store = new FileSecretStore(join(dir, 'secrets.json'))
  const append = (item: string) =>
    store.update('list', async (current) => {
      // Yield between read and write, where a lost update would happen.
      await new Promise((resolve) => setImmediate(resolve))
      return JSON.stringify([...(current === null ? [] : JSON.parse(current)), item])
    })
  await Promise.all(['a', 'b', 'c', 'd'].map(append))
  assert.deepEqual(JSON.parse((await store.get('list'))!), ['a', 'b', 'c', 'd'])
  // null deletes; answering the value it was given writes nothing.
  await store.update('list', async () => null)
  assert.equal(await store.get('list'), null)
  await store.set('kept', 'x')
  await store.update('kept', async (current) => current)
  assert.equal(await store.get('kept'), 'x')
})
