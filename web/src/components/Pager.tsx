// Keyset paging (next_cursor): forward by the cursor the last page answered,
// back by the cursors already seen, so page 10,000 costs what page 1 costs.
import { plural } from './format.js'

export interface PagerState {
  /** Cursors of the pages before this one (the first page has none). */
  previous: (string | null)[]
  cursor: string | null
}

export const FIRST_PAGE: PagerState = { previous: [], cursor: null }

export function nextPage(state: PagerState, next: string): PagerState {
  return { previous: [...state.previous, state.cursor], cursor: next }
}

export function previousPage(state: PagerState): PagerState {
  const previous = state.previous.slice(0, -1)
  return { previous, cursor: state.previous.at(-1) ?? null }
}

export function Pager({
  state,
  onChange,
  next,
  shown,
  limit,
  total,
  totalIsLowerBound,
}: {
  state: PagerState
  onChange: (state: PagerState) => void
  next: string | null
  shown: number
  limit: number
  total: number
  totalIsLowerBound?: boolean
}) {
  const first = state.previous.length * limit + (shown === 0 ? 0 : 1)
  const last = state.previous.length * limit + shown
  return (
    <div class="pager" role="navigation" aria-label="Pages">
      <span class="count">
        {shown === 0
          ? 'No rows'
          : `${first.toLocaleString()}–${last.toLocaleString()} of ${totalIsLowerBound ? 'at least ' : ''}${plural(total, 'row')}`}
      </span>
      <button
        type="button"
        disabled={state.previous.length === 0}
        onClick={() => onChange(FIRST_PAGE)}
      >
        First
      </button>
      <button
        type="button"
        disabled={state.previous.length === 0}
        onClick={() => onChange(previousPage(state))}
      >
        Previous
      </button>
      <button
        type="button"
        disabled={next === null}
        onClick={() => next && onChange(nextPage(state, next))}
      >
        Next
      </button>
    </div>
  )
}
