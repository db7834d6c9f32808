// Setup tokens and access URLs (CONTRACT 4): what counts as each, and how an
// access URL becomes a bare endpoint plus an Authorization header for fetch.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decodeSetupToken, parseAccessUrl } from './access.js'

test('an access URL splits into a bare endpoint and Basic auth, percent-decoded', () => {
  const access = parseAccessUrl(' https://us%40er:p%3Ass@bridge.example/simplefin?x=1#y \n')
  assert.ok(access)
  assert.equal(access.endpoint.toString(), 'https://bridge.example/simplefin')
  assert.equal(access.authorization, `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`)
  // What redactText masks in the bridge's own words: the URL, the password as
  // written and decoded, user:password.
  assert.deepEqual(access.secrets, [
    'https://us%40er:p%3Ass@bridge.example/simplefin?x=1#y',
    'p%3Ass',
    'p:ss',
    'us@er:p:ss',
  ])
})

test('anything else is not an access URL', () => {
  for (const text of [
    'https://bridge.example/simplefin', // no credentials
    'https://user@bridge.example/simplefin', // no password
    'ftp://user:pass@bridge.example/',
    'not a url',
    '',
  ]) {
    assert.equal(parseAccessUrl(text), null, text)
  }
})

test('a setup token is the base64 of an http(s) claim URL, in either alphabet', () => {
  const claim = 'https://bridge.example/simplefin/claim/ABC?x=~~~'
  const standard = Buffer.from(claim).toString('base64')
  const urlSafe = Buffer.from(claim).toString('base64url')
  assert.equal(decodeSetupToken(`  ${standard}\n`)?.toString(), claim)
  assert.equal(decodeSetupToken(urlSafe)?.toString(), claim)
  assert.equal(decodeSetupToken(Buffer.from('ftp://x/claim').toString('base64')), null)
  assert.equal(decodeSetupToken(Buffer.from('just words').toString('base64')), null)
  assert.equal(decodeSetupToken('https://user:pass@bridge.example/'), null)
})
