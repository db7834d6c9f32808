// A seeded generator for tests that build their own random ledgers (fast-check's
// runs are in property.ts), and the seed both take from COFFER_PROPERTY_SEED.
/** A small deterministic generator (mulberry32) for hand-rolled random ledgers, so a failure can be replayed. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The seed of a randomised test: COFFER_PROPERTY_SEED when set (an integer, or
 * "random" for a fresh one; print it so that a failure can be replayed), else
 * the test's own `fallback`.
 */
export function seedFromEnv(fallback: number): number {
  const text = process.env.COFFER_PROPERTY_SEED?.trim()
  if (text === undefined || text === '') return fallback
  if (text === 'random') return Math.floor(Math.random() * 0x7fffffff)
  if (!/^-?\d+$/.test(text))
    throw new Error(
      `COFFER_PROPERTY_SEED: expected an integer or "random", got ${JSON.stringify(text)}`,
    )
  return Number(text)
}
