// The two credential texts of SimpleFIN (CONTRACT 4): a setup token, the base64 of
// a claim URL, and the access URL `https://user:pass@host/path` it is traded for.
// Node's fetch refuses URLs that carry credentials, so an access URL is split
// into its bare endpoint and an `Authorization: Basic` header. Nothing here puts
// a credential into a message.
import { createHash } from 'node:crypto'

export interface BridgeAccess {
  /** The access URL without its user and password. */
  endpoint: URL
  /** `Basic <base64 of user:pass>`. */
  authorization: string
  /**
   * The secret texts of the credential (the access URL, its password as written
   * and decoded, `user:pass`), for redactText over anything the bridge says.
   */
  secrets: readonly string[]
}

function httpUrl(text: string): URL | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : null
}

/** An access URL split for fetch, or null when the text is not one (no user and password). */
export function parseAccessUrl(text: string): BridgeAccess | null {
  const url = httpUrl(text.trim())
  if (!url || url.username === '' || url.password === '') return null
  // URL keeps them percent-encoded; Basic auth wants the plain text.
  let user: string
  let pass: string
  try {
    user = decodeURIComponent(url.username)
    pass = decodeURIComponent(url.password)
  } catch {
    return null
  }
  const endpoint = new URL(url.toString())
  endpoint.username = ''
  endpoint.password = ''
  endpoint.search = ''
  endpoint.hash = ''
  return {
    endpoint,
    authorization: `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`,
    secrets: [...new Set([text.trim(), url.password, pass, `${user}:${pass}`])],
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/** The claim URL a setup token encodes, or null when the text is not a setup token. */
export function decodeSetupToken(text: string): URL | null {
  const token = text.trim()
  if (!BASE64.test(token)) return null
  // Both alphabets: bridges hand out standard base64; a pasted token may be URL-safe.
  const decoded = Buffer.from(token.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString(
    'utf8',
  )
  return httpUrl(decoded)
}

/** A stable, one-way name for a credential, so the secret store can remember facts about it. */
export function fingerprint(credential: string): string {
  return createHash('sha256').update(credential.trim()).digest('hex')
}
