// The search planner's switches, apart so that every part of search can read them.

/** Plan switches; only the property test changes them, to cover both sides. */
export const searchTuning = {
  /**
   * Candidate sets above this size stream without their id-set parts: each
   * page would rebuild the whole set, so walking the date index is cheaper.
   */
  largeCandidateSet: 20_000,
  /** Above this many matches, a page walks the date index instead of sorting every match. */
  dateOrderThreshold: 5_000,
  /**
   * SQLite: a search whose dates (filter or date terms) hold at most this many
   * rows reads them one by one in date order, count and page alike.
   */
  fewDaysRows: 20_000,
  /**
   * SQLite: a text term whose needle the rows' own text holds in at least this
   * share of a sample of rows is tested row by row, not gathered through the
   * trigram documents (narrow.ts broadFreeText): "card" in a bank's every row.
   */
  broadTextShare: 0.25,
}
