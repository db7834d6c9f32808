import { test } from 'node:test'
import assert from 'node:assert/strict'
import { isLoopbackAddr, splitHostPort } from './addr.js'

test('isLoopbackAddr accepts only loopback hosts', () => {
  for (const addr of [
    '127.0.0.1:8080',
    '127.1.2.3:0',
    '[::1]:8080',
    'localhost:8080',
    'LOCALHOST:1',
    '::1',
    '127.0.0.1',
    'localhost',
    '[0:0:0:0:0:0:0:1]:80',
  ]) {
    assert.equal(isLoopbackAddr(addr), true, addr)
  }
  for (const addr of [
    '0.0.0.0:8080',
    '[::]:8080',
    '::',
    '192.168.1.10:8080',
    'example.com:80',
    '10.0.0.1',
    '127.0.0.256:80',
    '128.0.0.1:80',
  ]) {
    assert.equal(isLoopbackAddr(addr), false, addr)
  }
})

test('splitHostPort parses host:port and bracketed IPv6', () => {
  assert.deepEqual(splitHostPort('127.0.0.1:8080'), { host: '127.0.0.1', port: 8080 })
  assert.deepEqual(splitHostPort('[::1]:0'), { host: '::1', port: 0 })
  assert.deepEqual(splitHostPort('example.com:65535'), { host: 'example.com', port: 65535 })
  assert.throws(() => splitHostPort('127.0.0.1'), /host:port/)
  assert.throws(() => splitHostPort('::1:80'), /brackets/)
  assert.throws(() => splitHostPort('host:65536'), /0 to 65535/)
  assert.throws(() => splitHostPort('host:http'), /0 to 65535/)
  assert.throws(() => splitHostPort(':8080'), /missing host/)
  assert.throws(() => splitHostPort('[::1]8080'), /\[ipv6\]:port/)
})
