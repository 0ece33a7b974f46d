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
  /** Leaf pages the first merge step may write; later steps are sized to `stepTargetMs`. */
  readonly pagesPerStep: number
  /**
   * Time one merge step should take, ms: each step holds the event loop and the write lock for
   * all of it, so later steps write as many pages as took this long in the step before.
   */
  readonly stepTargetMs: number
}

export const FTS_COMPACTION_DEFAULTS: FtsCompactionSettings = {
  firstCheckMs: 2_000,
  checkEveryMs: 30_000,
  minChanges: 200,
  pagesPerStep: 64,
  stepTargetMs: 8,
}

/** Bounds of a step's page count (a step below a few pages spends more on its commit). */
const MIN_PAGES_PER_STEP = 4
const MAX_PAGES_PER_STEP = 4096

/** What one compaction did (tests and the log). */
export interface FtsCompactionReport {
  readonly steps: number
  readonly ms: number
  /** The longest merge statement of one step, ms (what the event loop waited at most). */
  readonly longestStepMs: number
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

  /**
   * Merges the index into one segment, step by step, until a step does no work. A step's page
   * count follows the time the previous step's merge took (`stepTargetMs`): 500 pages took
   * 45-56 ms here, over the event-loop budget of a request.
   */
  async compact(): Promise<FtsCompactionReport> {
    const started = performance.now()
    const { stepTargetMs } = this.#settings
    let pages = this.#settings.pagesPerStep
    let steps = 0
    let longestStepMs = 0
    for (;;) {
      if (this.#stopped) break
      const first = steps === 0
      const { changed, ms } = await this.#runWrite(() => {
        const before = this.#totalChanges()
        const t = performance.now()
        this.#db.prepare(MERGE_SQL).run(first ? -pages : pages)
        return { changed: this.#totalChanges() - before, ms: performance.now() - t }
      })
      steps += 1
      longestStepMs = Math.max(longestStepMs, ms)
      if (changed < 2) break
      pages = nextStepPages(pages, ms, stepTargetMs)
      await yieldToEventLoop()
    }
    return { steps, ms: performance.now() - started, longestStepMs }
  }

  #totalChanges(): number {
    return (this.#db.prepare('SELECT total_changes() AS n').get() as { n: number }).n
  }
}

/** Pages for the next step: as many as `targetMs` of merging at the last step's pace, bounded. */
export function nextStepPages(pages: number, ms: number, targetMs: number): number {
  const paced = Math.floor((pages * targetMs) / Math.max(ms, 0.01))
  // At most double per step: one quick step (a small segment) does not make the next one huge.
  return Math.min(MAX_PAGES_PER_STEP, Math.max(MIN_PAGES_PER_STEP, Math.min(paced, pages * 2)))
}
