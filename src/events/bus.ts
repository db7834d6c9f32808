// The in-memory fan-out of committed events (SPEC 6.1.4). Publishing never
// blocks: each subscriber has a buffer of 64 events, and a subscriber that falls
// a full buffer behind is dropped (and counted). A dropped consumer catches up
// by replaying the durable log from its last sequence (see follow.ts).
import type { EventEnvelope } from './types.js'

export const BUS_BUFFER_EVENTS = 64

export class Subscription {
  private readonly queue: EventEnvelope[] = []
  private waiter: ((event: EventEnvelope | null) => void) | null = null
  private closedFlag = false
  /** True when the bus dropped this subscriber for lagging. */
  dropped = false

  constructor(
    private readonly capacity: number,
    private readonly detach: (sub: Subscription) => void,
  ) {}

  get closed(): boolean {
    return this.closedFlag
  }

  /** Called by the bus; answers false when the buffer is full. */
  offer(event: EventEnvelope): boolean {
    if (this.waiter) {
      const wake = this.waiter
      this.waiter = null
      wake(event)
      return true
    }
    if (this.queue.length >= this.capacity) return false
    this.queue.push(event)
    return true
  }

  /** The events buffered now, without waiting for more. */
  takeBuffered(): EventEnvelope[] {
    return this.queue.splice(0)
  }

  /** The next event, or null once the subscription is closed or dropped. */
  next(): Promise<EventEnvelope | null> {
    const head = this.queue.shift()
    if (head) return Promise.resolve(head)
    if (this.closedFlag) return Promise.resolve(null)
    return new Promise((resolve) => {
      this.waiter = resolve
    })
  }

  close(): void {
    if (this.closedFlag) return
    this.closedFlag = true
    this.queue.length = 0
    this.detach(this)
    const wake = this.waiter
    this.waiter = null
    wake?.(null)
  }
}

export class EventBus {
  private readonly subscribers = new Set<Subscription>()

  constructor(private readonly onDrop: () => void = () => undefined) {}

  subscribe(capacity = BUS_BUFFER_EVENTS): Subscription {
    const sub = new Subscription(capacity, (s) => this.subscribers.delete(s))
    this.subscribers.add(sub)
    return sub
  }

  get subscriberCount(): number {
    return this.subscribers.size
  }

  publish(events: readonly EventEnvelope[]): void {
    for (const event of events) {
      for (const sub of this.subscribers) {
        if (!sub.offer(event)) {
          sub.dropped = true
          sub.close()
          this.onDrop()
        }
      }
    }
  }

  closeAll(): void {
    for (const sub of [...this.subscribers]) sub.close()
  }
}
