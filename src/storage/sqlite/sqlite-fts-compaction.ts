import { setImmediate as yieldToEventLoop } from 'node:timers/promises'

import type Database from 'better-sqlite3'

/** When and how much the full-text index is compacted (docs/storage.md "Full-text index upkeep"). */
export interface FtsCompactionSettings {
  /** First look after the server starts (an index fragmented before it started). Default 2 s. */
  readonly firstCheckMs: number
  /** How often to look again. Default 30 s. */
  readonly checkEveryMs: number
  /** Rows this connection changed since the last compaction that make the next look compact. */
  readonly minChanges: number
  /** Leaf pages one merge step may write (one short write transaction each). */
  readonly pagesPerStep: number
}

export const FTS_COMPACTION_DEFAULTS: FtsCompactionSettings = {
  firstCheckMs: 2_000,
  checkEveryMs: 30_000,
  minChanges: 200,
  pagesPerStep: 500,
}

/** What one compaction did (tests and the log). */
export interface FtsCompactionReport {
  readonly steps: number
  readonly ms: number
}

// FTS5's incremental merge: a negative page count starts an incremental optimize (every
// segment of every level into one), later positive counts continue it. A step that changed
// fewer than two rows did no work: the index is one segment.
const MERGE_SQL = "INSERT INTO memory_fts (memory_fts, rank) VALUES ('merge', ?)"

/**
 * Keeps the FTS5 index of a long-running server in few segments. Each write transaction adds
 * segments that FTS5's automerge folds only partly; every query reads each segment, so a
 * fragmented index makes search slower (at 10,000 memories the candidate query took 3.5 ms
 * instead of 1.9 ms once compacted, docs/benchmarks.md). The index content never changes, only
 * its layout: results are the same. Work runs in bounded steps, one short write transaction
 * each through the backend's runner (other transactions interleave), yielding between steps.
 * Off unless started (the server starts it; CLI commands and `admin verify` never write).
 */
export class FtsCompaction {
  readonly #db: Database.Database
  readonly #runWrite: <T>(work: () => T) => Promise<T>
  readonly #settings: FtsCompactionSettings
  #timer: NodeJS.Timeout | undefined
  #running: Promise<unknown> | undefined
  #changesAtLast = -1
  #stopped = false

  constructor(
    db: Database.Database,
    runWrite: <T>(work: () => T) => Promise<T>,
    settings: Partial<FtsCompactionSettings> = {},
  ) {
    this.#db = db
    this.#runWrite = runWrite
    this.#settings = { ...FTS_COMPACTION_DEFAULTS, ...settings }
  }

  /** Starts looking (first after `firstCheckMs`, then every `checkEveryMs`). Idempotent. */
  start(onDone?: (report: FtsCompactionReport) => void, onError?: (err: unknown) => void): void {
    if (this.#stopped || this.#timer !== undefined) return
    const look = (delay: number): void => {
      this.#timer = setTimeout(() => {
        this.#running = this.#lookOnce()
          .then((report) => report !== undefined && onDone?.(report), onError)
          .finally(() => {
            this.#running = undefined
            if (!this.#stopped) look(this.#settings.checkEveryMs)
          })
      }, delay)
      this.#timer.unref()
    }
    look(this.#settings.firstCheckMs)
  }

  /** Stops looking; waits for a compaction under way to finish its current step. */
  async stop(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#running?.catch(() => undefined)
  }

  /**
   * Compacts when this connection changed enough rows since the last time (or never did); the
   * report when some work was done.
   */
  async #lookOnce(): Promise<FtsCompactionReport | undefined> {
    const changes = this.#totalChanges()
    if (this.#changesAtLast >= 0 && changes - this.#changesAtLast < this.#settings.minChanges)
      return undefined
    const report = await this.compact()
    this.#changesAtLast = this.#totalChanges()
    // One step that found nothing to merge is no news (an already compact index).
    return report.steps > 1 ? report : undefined
  }

  /** Merges the index into one segment, step by step, until a step does no work. */
  async compact(): Promise<FtsCompactionReport> {
    const started = performance.now()
    const pages = this.#settings.pagesPerStep
    let steps = 0
    for (;;) {
      if (this.#stopped) break
      const first = steps === 0
      const changed = await this.#runWrite(() => {
        const before = this.#totalChanges()
        this.#db.prepare(MERGE_SQL).run(first ? -pages : pages)
        return this.#totalChanges() - before
      })
      steps += 1
      if (changed < 2) break
      await yieldToEventLoop()
    }
    return { steps, ms: performance.now() - started }
  }

  #totalChanges(): number {
    return (this.#db.prepare('SELECT total_changes() AS n').get() as { n: number }).n
  }
}
