/**
 * The extraction side of the runtime (DESIGN §6): which planner flush uses (structured candidates
 * without a model, retrieve-then-decide with one), the flusher, the generation model's readiness
 * probe, the optional scheduler, and what capabilities report about all of it.
 */
import { MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE } from '../core/extraction-rules.js'
import type { SourceHandling, SourceKind } from '../core/source-kinds.js'
import { sourceHandling } from '../core/source-kinds.js'
import type {
  FlushRecordsCommand,
  FlushRecordsResult,
  SourceJournalPort,
} from '../storage/spi/flush-types.js'
import { FLUSH_LIMIT_DEFAULT, FLUSH_LIMIT_MAX } from '../storage/spi/flush-types.js'
import type { GenerationSettings } from './chat-model.js'
import { OpenAiCompatibleChatModel } from './chat-model.js'
import { PROMPT_VERSION } from './extraction-prompts.js'
import { StructuredPlanner } from './flush-planner.js'
import type { FlushSchedulerOptions, SchedulerTarget } from './flush-scheduler.js'
import { FlushScheduler } from './flush-scheduler.js'
import type { GenerationProvider } from './generation-provider.js'
import { ModelPlanner } from './model-planner.js'
import type { FlushCommand, FlusherOptions, FlushResult } from './source-flusher.js'
import { SourceFlusher } from './source-flusher.js'

/** Extraction options of a runtime. */
export interface ExtractionOptions {
  /** An OpenAI-compatible chat completions endpoint: flush extracts with the model. */
  readonly generation?: GenerationSettings | undefined
  /** A generation provider object (tests, embedding applications); wins over `generation`. */
  readonly provider?: GenerationProvider | undefined
  /** Flush tuning (poison attempts, re-plans, test hooks). */
  readonly flush?: FlusherOptions | undefined
}

/** What capabilities report about extraction (wire `extraction`). */
export interface ExtractionCapabilities {
  /** `structured` without a generation model, `model` with one. */
  readonly mode: 'none' | 'structured' | 'model'
  readonly model: string | null
  readonly promptVersion: string | null
  /** Media types turned into candidates without a model. */
  readonly structuredMediaTypes: readonly string[]
  /** How flush treats each kind of source: extracted by the model, or evidence only, … */
  readonly sourceKinds: Readonly<Record<SourceKind, SourceHandling>>
  readonly windowLimitDefault: number
  readonly windowLimitMax: number
  /** Failed attempts before a source is skipped. */
  readonly maxAttempts: number
  /** Scheduler interval in seconds, or null when flush runs only on request. */
  readonly scheduleSeconds: number | null
}

const READY_TTL_MS = 300_000
const FAILED_TTL_MS = 30_000

/** Flush, records, capabilities and readiness of extraction. */
export class Extraction {
  readonly #journal: SourceJournalPort
  readonly #model: GenerationProvider | undefined
  readonly #flusher: SourceFlusher
  #scheduler: FlushScheduler | undefined
  #probe: { value: string; until: number } | undefined

  constructor(journal: SourceJournalPort, options: ExtractionOptions = {}) {
    this.#journal = journal
    this.#model =
      options.provider ??
      (options.generation === undefined
        ? undefined
        : new OpenAiCompatibleChatModel(options.generation))
    const planner =
      this.#model === undefined
        ? new StructuredPlanner(journal)
        : new ModelPlanner({ model: this.#model, journal })
    this.#flusher = new SourceFlusher(journal, planner, options.flush)
  }

  flush(cmd: FlushCommand): Promise<FlushResult> {
    return this.#flusher.flush(cmd)
  }

  records(cmd: FlushRecordsCommand): Promise<FlushRecordsResult> {
    return this.#journal.records(cmd)
  }

  capabilities(): ExtractionCapabilities {
    return {
      mode: this.#flusher.mode,
      model: this.#model?.model ?? null,
      promptVersion: this.#model === undefined ? null : PROMPT_VERSION,
      structuredMediaTypes: [MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE],
      sourceKinds: sourceHandling(this.#model !== undefined),
      windowLimitDefault: FLUSH_LIMIT_DEFAULT,
      windowLimitMax: FLUSH_LIMIT_MAX,
      maxAttempts: this.#flusher.maxAttempts,
      scheduleSeconds: this.#scheduler === undefined ? null : this.#scheduler.intervalMs / 1000,
    }
  }

  /** Non-blocking readiness checks: `inference.generation` when a model is configured. */
  async checks(): Promise<Record<string, string>> {
    if (this.#model === undefined) return {}
    const now = Date.now()
    if (this.#probe === undefined || now >= this.#probe.until) {
      const value = await this.#model.probe()
      this.#probe = { value, until: now + (value === 'ready' ? READY_TTL_MS : FAILED_TTL_MS) }
    }
    return { 'inference.generation': this.#probe.value }
  }

  /** Starts the scheduler (once); see {@link FlushScheduler}. */
  startScheduler(target: SchedulerTarget, options: FlushSchedulerOptions): void {
    this.#scheduler ??= new FlushScheduler(target, options)
  }

  /** Stops the scheduler and waits for its running tick. */
  async stop(): Promise<void> {
    await this.#scheduler?.stop()
  }
}
