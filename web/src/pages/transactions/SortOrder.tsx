// Newest first or oldest first: the transaction list's order (?order=asc), a
// pair of toggle buttons so that the current order is announced as pressed.
import type { ListOrder } from './query-url.js'
import './sort-order.css'

const CHOICES: { order: ListOrder; label: string }[] = [
  { order: 'desc', label: 'Newest first' },
  { order: 'asc', label: 'Oldest first' },
]

export function SortOrder({
  order,
  onChange,
}: {
  order: ListOrder
  onChange: (order: ListOrder) => void
}) {
  return (
    <div class="sort-order" role="group" aria-label="Sort order">
      {CHOICES.map((choice) => (
        <button
          key={choice.order}
          type="button"
          aria-pressed={order === choice.order}
          onClick={() => {
            if (order !== choice.order) onChange(choice.order)
          }}
        >
          {choice.label}
        </button>
      ))}
    </div>
  )
}
