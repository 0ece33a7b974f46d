/**
 * The server's flush scheduler. Two triggers:
 * - **after a turn ends** (`autoFlush`): a capture whose metadata `event` is `stop`, `session_end`
 *   or `pre_compact` (what the agent hooks send when a turn or session ends or a compaction is
 *   about to drop context) arms a per-scope timer of `debounceMs`; more such captures of the scope
 *   re-arm it, so a burst yields one flush run. The run flushes window after window until the
 *   scope is idle (at most `maxWindows`).
 * - **a backstop** (`intervalMs`): every interval it lists the scopes with sources beyond their
 *   cursor (scope id order) and flushes one window of each, one scope at a time.
 * Never two runs at once; failures are reported and the next trigger tries again. While
 * extraction is paused (budget spent, rate-limited) nothing runs: sources stay pending.
 */

/** What the scheduler needs from the runtime. */
export interface SchedulerTarget {
  pendingScopes(cmd: { after?: string; limit?: number }): Promise<string[]>
  flush(cmd: { scopeId: string }): Promise<{ readonly status: 'idle' | 'processed' }>
}

/** Scheduler settings. */
export interface FlushSchedulerOptions {
  /** Backstop interval between ticks, in milliseconds (> 0); none when absent. */
  readonly intervalMs?: number | undefined
  /** Flush a scope by itself after a turn-end capture, this long after the last one. */
  readonly debounceMs?: number | undefined
  /** Windows per automatic run of one scope. Default 20. */
  readonly maxWindows?: number | undefined
  /** Told about each failed scope flush (the run goes on with the next scope). */
  readonly onError?: (err: unknown, scopeId: string) => void
  /** Non-null while extraction is paused: nothing is flushed. */
  readonly paused?: () => string | null
  /** Scopes listed per page. Default 100. */
  readonly pageSize?: number
}

/** The capture `metadata.event` values that end a turn and trigger an automatic flush. */
export const TURN_END_EVENTS: ReadonlySet<string> = new Set(['stop', 'session_end', 'pre_compact'])

/** Debounce of the automatic flush after a turn ends. */
export const AUTO_FLUSH_DEBOUNCE_MS_DEFAULT = 5_000

/** Runs ticks and automatic flushes until stopped; never two at once. */
export class FlushScheduler {
  readonly #target: SchedulerTarget
  readonly #options: FlushSchedulerOptions
  #timer: NodeJS.Timeout | undefined
  readonly #armed = new Map<string, NodeJS.Timeout>()
  #queue: Promise<void> = Promise.resolve()
  #running = 0
  #stopped = false
  /** Completed backstop ticks (tests and metrics). */
  ticks = 0
  /** Completed automatic runs (tests and metrics). */
  autoRuns = 0

  constructor(target: SchedulerTarget, options: FlushSchedulerOptions) {
    if (options.intervalMs !== undefined && !(options.intervalMs > 0))
      throw new RangeError('intervalMs must be positive')
    this.#target = target
    this.#options = options
    this.#schedule()
  }

  get intervalMs(): number | undefined {
    return this.#options.intervalMs
  }

  get autoFlush(): boolean {
    return this.#options.debounceMs !== undefined
  }

  #schedule(): void {
    const interval = this.#options.intervalMs
    if (this.#stopped || interval === undefined) return
    this.#timer = setTimeout(() => {
      void this.#serial(() => this.tick()).finally(() => this.#schedule())
    }, interval)
    this.#timer.unref()
  }

  /** Runs `work` after every earlier run has finished. */
  #serial(work: () => Promise<void>): Promise<void> {
    this.#running += 1
    const run = this.#queue.then(work).finally(() => {
      this.#running -= 1
    })
    this.#queue = run.catch(() => undefined)
    return run
  }

  /** A source was captured: a turn-end capture arms the scope's automatic flush. */
  captured(scopeId: string, metadata: Readonly<Record<string, unknown>> | undefined): void {
    const debounce = this.#options.debounceMs
    if (debounce === undefined || this.#stopped) return
    const event = metadata?.['event']
    if (typeof event !== 'string' || !TURN_END_EVENTS.has(event)) return
    clearTimeout(this.#armed.get(scopeId))
    const timer = setTimeout(() => {
      this.#armed.delete(scopeId)
      void this.#serial(() => this.#drain(scopeId))
    }, debounce)
    timer.unref()
    this.#armed.set(scopeId, timer)
  }

  /** Flushes one scope window after window until it is idle. */
  async #drain(scopeId: string): Promise<void> {
    const max = this.#options.maxWindows ?? 20
    for (let i = 0; i < max; i += 1) {
      if (this.#stopped || this.#options.paused?.() != null) break
      try {
        if ((await this.#target.flush({ scopeId })).status === 'idle') break
      } catch (err) {
        this.#options.onError?.(err, scopeId)
        break
      }
    }
    this.autoRuns += 1
  }

  /** One pass over the pending scopes: one flush window each, serially. */
  async tick(): Promise<void> {
    const pageSize = this.#options.pageSize ?? 100
    let after = ''
    for (;;) {
      if (this.#stopped || this.#options.paused?.() != null) break
      const scopes = await this.#target.pendingScopes({ after, limit: pageSize }).catch((err) => {
        this.#options.onError?.(err, '')
        return []
      })
      for (const scopeId of scopes) {
        if (this.#stopped || this.#options.paused?.() != null) return
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

  /** True while no run is queued or running and no automatic flush is armed (tests). */
  get quiet(): boolean {
    return this.#running === 0 && this.#armed.size === 0
  }

  /** Stops scheduling and waits for a running tick or automatic run to finish. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    for (const t of this.#armed.values()) clearTimeout(t)
    this.#armed.clear()
    await this.#queue
  }
}
