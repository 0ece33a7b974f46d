/**
 * The optional flush scheduler (`powercontext server run --schedule-seconds N`): every interval it
 * lists the scopes with sources beyond their cursor (scope id order) and flushes one window of
 * each, one scope at a time. Failures are reported and skipped; the next tick tries again. Off by
 * default: without it, sources are processed only by explicit flush calls.
 */

/** What the scheduler needs from the runtime. */
export interface SchedulerTarget {
  pendingScopes(cmd: { after?: string; limit?: number }): Promise<string[]>
  flush(cmd: { scopeId: string }): Promise<unknown>
}

/** Scheduler settings. */
export interface FlushSchedulerOptions {
  /** Interval between ticks, in milliseconds (> 0). */
  readonly intervalMs: number
  /** Told about each failed scope flush (the tick goes on with the next scope). */
  readonly onError?: (err: unknown, scopeId: string) => void
  /** Scopes listed per page. Default 100. */
  readonly pageSize?: number
}

/** Runs ticks until stopped; never two ticks at once. */
export class FlushScheduler {
  readonly #target: SchedulerTarget
  readonly #options: FlushSchedulerOptions
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #stopped = false
  /** Completed ticks (tests and metrics). */
  ticks = 0

  constructor(target: SchedulerTarget, options: FlushSchedulerOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError('intervalMs must be positive')
    this.#target = target
    this.#options = options
    this.#schedule()
  }

  get intervalMs(): number {
    return this.#options.intervalMs
  }

  #schedule(): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#running = this.tick().finally(() => {
        this.#running = undefined
        this.#schedule()
      })
    }, this.#options.intervalMs)
    this.#timer.unref()
  }

  /** One pass over the pending scopes: one flush window each, serially. */
  async tick(): Promise<void> {
    const pageSize = this.#options.pageSize ?? 100
    let after = ''
    for (;;) {
      if (this.#stopped) return
      const scopes = await this.#target.pendingScopes({ after, limit: pageSize }).catch((err) => {
        this.#options.onError?.(err, '')
        return []
      })
      for (const scopeId of scopes) {
        if (this.#stopped) return
        try {
          await this.#target.flush({ scopeId })
        } catch (err) {
          this.#options.onError?.(err, scopeId)
        }
      }
      if (scopes.length < pageSize) break
      after = scopes.at(-1) as string
    }
    this.ticks += 1
  }

  /** Stops scheduling and waits for a running tick to finish. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#running
  }
}
