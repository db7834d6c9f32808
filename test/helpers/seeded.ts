// A seeded generator for tests that build their own random ledgers (fast-check's
// runs are in property.ts).
/** A small deterministic generator (mulberry32) for hand-rolled random ledgers, so a failure can be replayed. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
