// Plugin pages (CONTRACT 9): what onPageRender and onPageAction return is checked
// block by block against the vocabulary and its bounds before anything is
// answered. A page that does not pass is the plugin's error (502), never shown
// half; the message says which block and why.
import { PluginPage } from '../schemas/plugins.js'
import type { Static } from 'typebox'

export const PAGE_MAX_BYTES = 256 * 1024
export const PAGE_MAX_BLOCKS = 200

export type Page = Static<typeof PluginPage>

const BLOCK_TYPES = new Set([
  'heading',
  'text',
  'stat',
  'keyvalue',
  'table',
  'actions',
  'form',
  'divider',
])

export class PageError extends Error {
  override name = 'PageError'
}

/** typebox's value module (some 300 files) loads at the first page checked, not at every start. */
let valueModule: Promise<typeof import('typebox/value')> | undefined

/** The page a hook returned, checked; rejects with a PageError naming the first problem. */
export async function checkPage(value: unknown): Promise<Page> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PageError('the hook returned no page: expected {title, blocks}')
  const size = Buffer.byteLength(JSON.stringify(value))
  if (size > PAGE_MAX_BYTES)
    throw new PageError(`the page is ${size} bytes; at most ${PAGE_MAX_BYTES}`)
  const { blocks } = value as { blocks?: unknown }
  if (Array.isArray(blocks)) {
    if (blocks.length > PAGE_MAX_BLOCKS)
      throw new PageError(`the page has ${blocks.length} blocks; at most ${PAGE_MAX_BLOCKS}`)
    blocks.forEach((block: unknown, i) => {
      const type = (block as { type?: unknown } | null)?.type
      if (typeof type !== 'string' || !BLOCK_TYPES.has(type))
        throw new PageError(`blocks[${i}]: unknown block type ${JSON.stringify(type ?? null)}`)
    })
  }
  const { default: Value } = await (valueModule ??= import('typebox/value'))
  const page = Value.Clean(PluginPage, structuredClone(value))
  const error = Value.Errors(PluginPage, page)[0]
  if (error) {
    const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'page'
    throw new PageError(`${where}: ${error.message}`)
  }
  return page as Page
}
