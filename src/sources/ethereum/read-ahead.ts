// Fetching and persisting overlap: while the engine merges the rows it has, the
// next pages are already being fetched. Up to `pages` requests are queued on the
// source generator (an async generator serves queued next() calls in order), so
// memory stays bounded and the explorer sees one request at a time.

export async function* readAhead<T>(source: AsyncIterable<T>, pages: number): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]()
  const queued: Array<Promise<IteratorResult<T>>> = []
  const fill = () => {
    while (queued.length < pages) {
      const next = iterator.next()
      // Seen when its turn comes; until then a failure must not count as unhandled.
      next.catch(() => undefined)
      queued.push(next)
    }
  }
  let finished = false
  try {
    fill()
    for (;;) {
      const result = await queued.shift()!
      if (result.done) {
        finished = true
        return
      }
      fill()
      yield result.value
    }
  } catch (error) {
    finished = true
    throw error
  } finally {
    // The consumer stopped early: let the source wind down without waiting for it.
    if (!finished) void iterator.return?.(undefined)?.catch(() => undefined)
  }
}
