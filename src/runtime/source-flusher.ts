/**
 * `flush(scope)` (docs/sources-and-flush.md): read the window
 * after the cursor (read transaction), plan it (structured candidates or a model; no transaction
 * and no lock held, so captures and searches never wait for inference), then apply the decisions
 * and advance the cursor in one write transaction with a compare-and-set on the cursor. If the
 * cursor or a target moved meanwhile, the window is read and planned again (two concurrent
 * flushes never process a source twice). Any other failure leaves the cursor where it was; a
 * failure caused by the content (invalid model output, invalid candidates) is counted against the
 * source, and a source that keeps failing on its own is skipped after `maxAttempts`.
 */
import { PowerContextError } from '../core/errors.js'
import { failureReaction } from '../core/flush-policy.js'
import { checkScopeId } from '../core/ids.js'
import type { MemoryChange } from '../core/memory-model.js'
import type {
  ApplyHooks,
  SkippedSource,
  SourceJournalPort,
  SourceWindow,
} from '../storage/spi/flush-types.js'
import { isCursorConflict } from '../storage/spi/flush-types.js'
import { FLUSH_MAX_ATTEMPTS_DEFAULT } from '../storage/spi/flush-types.js'
import type { FlushPlanner, SourceOutcome } from './flush-planner.js'
import { windowJson } from './flush-planner.js'
import type { WindowUsage } from './model-call.js'

/** A flush request. */
export interface FlushCommand {
  readonly scopeId: string
  /** Sources per window: 1–1000, default 100. */
  readonly limit?: number | undefined
  /** Never process beyond this journal position. */
  readonly until?: number | undefined
}

/** What one flush did (docs/http-api.md). */
export interface FlushResult {
  /** `processed` when the cursor moved, else `idle`. */
  readonly status: 'idle' | 'processed'
  readonly previousCursor: number
  readonly cursor: number
  readonly highWatermark: number
  readonly processedSourceCount: number
  /** Change-log rows written, oldest first. */
  readonly changes: readonly MemoryChange[]
  readonly skippedSources: readonly SkippedSource[]
  /** What each processed source contributed (empty when idle or when a source was skipped). */
  readonly sources: readonly SourceOutcome[]
  /** The decision record of the window, or null when idle. */
  readonly recordId: string | null
  readonly mode: 'structured' | 'model'
  /**
   * Model calls, tokens and wall time of the planned window (also in its decision record as
   * `details.model_usage`); null without a model, when idle, or for a skipped source. Calls of a
   * failed attempt are reported to the planner's `onModelCall` observer only.
   */
  readonly modelUsage?: WindowUsage | null
}

/** Flush tuning; tests add hooks. */
export interface FlusherOptions {
  /** Failed attempts of a source before it is skipped. Default 3. */
  readonly maxAttempts?: number | undefined
  /** Re-plans after the cursor or a target moved, before failing with `revision_conflict`. Default 3. */
  readonly maxReplans?: number | undefined
  /** Test hooks run inside the apply transaction. */
  readonly hooks?: ApplyHooks | undefined
}

/** Runs flushes of scopes over one backend journal and one planner. */
export class SourceFlusher {
  readonly #journal: SourceJournalPort
  readonly #planner: FlushPlanner
  readonly #maxAttempts: number
  readonly #maxReplans: number
  readonly #hooks: ApplyHooks | undefined

  constructor(journal: SourceJournalPort, planner: FlushPlanner, options: FlusherOptions = {}) {
    this.#journal = journal
    this.#planner = planner
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? FLUSH_MAX_ATTEMPTS_DEFAULT)
    this.#maxReplans = Math.max(0, options.maxReplans ?? 3)
    this.#hooks = options.hooks
  }

  get mode(): 'structured' | 'model' {
    return this.#planner.mode
  }

  get maxAttempts(): number {
    return this.#maxAttempts
  }

  /**
   * Processes one window of the scope.
   * @throws PowerContextError `invalid_request`; `inference_timeout`, `inference_unavailable`,
   *   `invalid_inference_output` (model); `revision_conflict` when the cursor kept moving.
   */
  async flush(cmd: FlushCommand): Promise<FlushResult> {
    const scopeId = checkScopeId(cmd.scopeId)
    for (let round = 0; ; round += 1) {
      const window = await this.#journal.window({ scopeId, limit: cmd.limit, until: cmd.until })
      const last = window.sources.at(-1)
      if (last === undefined) return this.#idle(window)
      try {
        const plan = await this.#planner.plan(window)
        const applied = await this.#journal.apply(
          {
            scopeId,
            expected: window.cursor,
            through: last.position,
            decisions: plan.decisions,
            record: plan.record,
          },
          this.#hooks,
        )
        return {
          status: 'processed',
          previousCursor: window.cursor.position,
          cursor: applied.cursor,
          highWatermark: window.highWatermark,
          processedSourceCount: applied.cursor - window.cursor.position,
          changes: applied.changes,
          skippedSources: [],
          sources: plan.outcomes,
          recordId: applied.recordId,
          mode: this.#planner.mode,
          modelUsage: plan.usage ?? null,
        }
      } catch (err) {
        if (!(err instanceof PowerContextError)) throw err
        const reaction = failureReaction(err.code, {
          cursorMoved: isCursorConflict(err),
          round,
          maxReplans: this.#maxReplans,
        })
        if (reaction === 'replan') continue
        if (reaction === 'throw') throw err
        const outcome = await this.#fail(window, last.position, err)
        if (outcome instanceof PowerContextError) throw outcome
        return outcome
      }
    }
  }

  /** Counts the failure: the result of a skip, or the error to throw (with the attempt count). */
  async #fail(
    window: SourceWindow,
    through: number,
    err: PowerContextError,
  ): Promise<FlushResult | PowerContextError> {
    const failure = await this.#journal.fail({
      scopeId: window.scopeId,
      expected: window.cursor,
      through,
      error: { code: err.code, message: err.message },
      maxAttempts: this.#maxAttempts,
      record: {
        mode: this.#planner.mode,
        model: this.#planner.model,
        promptVersion: this.#planner.promptVersion,
        details: { window: windowJson(window), failure: { code: err.code, message: err.message } },
      },
    })
    if (failure.skipped === null) {
      const details = failure.recorded
        ? { ...err.details, source_attempts: failure.attempts, max_attempts: this.#maxAttempts }
        : err.details
      return new PowerContextError(err.code, err.message, details, { cause: err })
    }
    return {
      status: 'processed',
      previousCursor: window.cursor.position,
      cursor: failure.cursor,
      highWatermark: window.highWatermark,
      processedSourceCount: failure.cursor - window.cursor.position,
      changes: [],
      skippedSources: [failure.skipped],
      sources: [],
      recordId: failure.recordId,
      mode: this.#planner.mode,
      modelUsage: null,
    }
  }

  #idle(window: SourceWindow): FlushResult {
    return {
      status: 'idle',
      previousCursor: window.cursor.position,
      cursor: window.cursor.position,
      highWatermark: window.highWatermark,
      processedSourceCount: 0,
      changes: [],
      skippedSources: [],
      sources: [],
      recordId: null,
      mode: this.#planner.mode,
      modelUsage: null,
    }
  }
}
