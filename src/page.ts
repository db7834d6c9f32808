// List paging (SPEC 4, CONTRACT 3): limit defaults to 100 and is clamped to 1000
// here, once, for every list. Negative or non-numeric values never get this far:
// the route schemas reject them with a 400.
export const LIST_LIMIT_DEFAULT = 100
export const LIST_LIMIT_MAX = 1000

export interface PageInput {
  limit?: number | undefined
  offset?: number | undefined
}

export interface Page {
  limit: number
  offset: number
}

export function resolvePage(input: PageInput): Page {
  const limit = Math.min(input.limit ?? LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX)
  return { limit, offset: input.offset ?? 0 }
}
