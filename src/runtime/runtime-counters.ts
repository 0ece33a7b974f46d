import type { UsedSearchMode } from '../storage/spi/search-types.js'
import type { ExtractionUsage } from './metered-provider.js'
import type { FlushResult } from './source-flusher.js'

/** How a flush ended: the cursor moved (`processed`), nothing pending (`idle`), or it threw. */
export const FLUSH_OUTCOMES = ['processed', 'idle', 'failed'] as const
export type FlushOutcome = (typeof FLUSH_OUTCOMES)[number]

/** Counts since the runtime opened (the server's `GET /metrics` reads them at scrape time). */
export interface RuntimeCounts {
  /** Searches answered, by the mode actually used. */
  readonly searches: Readonly<Record<UsedSearchMode, number>>
  /** Flushes, explicit and scheduled, by outcome. */
  readonly flushes: Readonly<Record<FlushOutcome, number>>
}

/** Running totals of what the runtime did; plain numbers, no I/O. */
export class RuntimeCounters {
  readonly #searches: Record<UsedSearchMode, number> = { fts: 0, vector: 0, hybrid: 0 }
  readonly #flushes: Record<FlushOutcome, number> = { processed: 0, idle: 0, failed: 0 }

  /** Counts a search by the mode its result reports; a failed search is not counted. */
  async search<T extends { readonly mode: UsedSearchMode }>(result: Promise<T>): Promise<T> {
    const r = await result
    this.#searches[r.mode] += 1
    return r
  }

  /** Counts a flush by its outcome and passes it (or its failure) on. */
  async flush(result: Promise<FlushResult>): Promise<FlushResult> {
    try {
      const r = await result
      this.#flushes[r.status] += 1
      return r
    } catch (err) {
      this.#flushes.failed += 1
      throw err
    }
  }

  snapshot(): RuntimeCounts {
    return Object.freeze({
      searches: Object.freeze({ ...this.#searches }),
      flushes: Object.freeze({ ...this.#flushes }),
    })
  }
}

/** `MemoryRuntime.stats()`: counts since open, and the reindex backlog now. */
export interface RuntimeStats extends RuntimeCounts {
  readonly reindex: {
    /** Some active memory may lack its vector (vectors ready; unknown at open counts as a backlog). */
    readonly backlog: boolean
    /** Memories without a valid vector after the background reindex's last pass; null before one. */
    readonly remaining: number | null
  }
  /** Extraction calls, tokens and provider wall time since open; null without a provider. */
  readonly extraction: Readonly<ExtractionUsage> | null
}
