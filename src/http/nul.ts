// PostgreSQL text cannot hold U+0000, so no input string may contain it, on
// either engine: REST requests and MCP tool arguments are both checked with this.

/** The path of the first string (or key) in `value` that contains U+0000, or null. */
export function findNul(value: unknown, root: string): string | null {
  // Iterative: a body may be nested thousands of levels deep.
  const stack: Array<{ item: unknown; path: string }> = [{ item: value, path: root }]
  while (stack.length > 0) {
    const { item, path } = stack.pop()!
    if (typeof item === 'string') {
      if (item.includes('\0')) return path
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        const childPath = path === root ? key : `${path}.${key}`
        if (key.includes('\0')) return childPath
        stack.push({ item: child, path: childPath })
      }
    }
  }
  return null
}
