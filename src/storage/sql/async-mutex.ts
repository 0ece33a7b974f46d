/**
 * A FIFO mutex for async work: one transaction at a time on a connection (after kysely's
 * one-connection mutex), so an awaiting transaction can never interleave with another.
 */
export class AsyncMutex {
  #tail: Promise<unknown> = Promise.resolve()

  /** Runs `work` after every earlier caller has finished. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work)
    this.#tail = result.catch(() => undefined)
    return result
  }
}
