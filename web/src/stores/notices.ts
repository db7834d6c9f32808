// Short messages at the edge of the screen: what just happened, or what failed.
import { signal } from '@preact/signals'

export interface Notice {
  id: number
  kind: 'ok' | 'error'
  text: string
}

export const notices = signal<Notice[]>([])
let next = 1

export function notify(text: string, kind: Notice['kind'] = 'ok'): void {
  const notice = { id: next++, kind, text }
  notices.value = [...notices.value, notice]
  setTimeout(() => dismiss(notice.id), kind === 'error' ? 10_000 : 4_000)
}

export function dismiss(id: number): void {
  notices.value = notices.value.filter((n) => n.id !== id)
}
