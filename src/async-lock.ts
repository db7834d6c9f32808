// A FIFO lock for async work in one process: holders run one at a time, in the
// order they asked (the ledger's event append, read-modify-writes of a secret).

export class AsyncLock {
  private tail: Promise<void> = Promise.resolve()

  /** Resolves, in turn, with the function that releases the lock. */
  acquire(): Promise<() => void> {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const ready = this.tail.then(() => release)
    this.tail = this.tail.then(() => held)
    return ready
  }

  /** Runs `work` once every earlier holder is done; a failure is the caller's alone. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire()
    try {
      return await work()
    } finally {
      release()
    }
  }
}
