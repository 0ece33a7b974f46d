/**
 * The extraction side of the runtime (docs/sources-and-flush.md): which planner flush uses (structured candidates
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
import type { BudgetSettings, BudgetStatus } from './extraction-budget.js'
import {
  ENDPOINT_BUDGET_DEFAULT,
  ExtractionBudget,
  HOST_BUDGET_DEFAULT,
} from './extraction-budget.js'
import { PROMPT_VERSION } from './extraction-prompts.js'
import { StructuredPlanner } from './flush-planner.js'
import type { FlushSchedulerOptions, SchedulerTarget } from './flush-scheduler.js'
import { FlushScheduler } from './flush-scheduler.js'
import type { GenerationProvider } from './generation-provider.js'
import type { HostProviderSettings } from './host-provider.js'
import type { HostProviderKind } from './host-providers.js'
import { HOST_PROVIDERS } from './host-providers.js'
import type { ExtractionUsage } from './metered-provider.js'
import { BudgetedProvider } from './metered-provider.js'
import type { ModelCallRecord } from './model-call.js'
import { ModelPlanner } from './model-planner.js'
import type { FlushCommand, FlusherOptions, FlushResult } from './source-flusher.js'
import { SourceFlusher } from './source-flusher.js'

/** Extraction options of a runtime. */
export interface ExtractionOptions {
  /** An OpenAI-compatible chat completions endpoint: flush extracts with the model. */
  readonly generation?: GenerationSettings | undefined
  /** The user's own agent host as the generation provider (a row of `HOST_PROVIDERS`). */
  readonly host?:
    { readonly kind: HostProviderKind; readonly settings?: HostProviderSettings } | undefined
  /** A generation provider object (tests, embedding applications); wins over the others. */
  readonly provider?: GenerationProvider | undefined
  /** Daily caps of provider calls and tokens; defaults by provider (0 = no cap). */
  readonly budget?: Partial<BudgetSettings> | undefined
  /** Where the budget's state is kept across restarts (the data directory's file). */
  readonly budgetFile?: string | undefined
  /** The budget's clock (tests move it to the next day). */
  readonly clock?: (() => number) | undefined
  /** Flush tuning (poison attempts, re-plans, test hooks). */
  readonly flush?: FlusherOptions | undefined
  /** Sees every generation call of flush as it finishes (usage, wall time, error), failed windows included. */
  readonly onModelCall?: ((call: ModelCallRecord) => void) | undefined
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
  /** The generation provider, null without one. */
  readonly provider: GenerationProvider['kind'] | null
  /** The budget and where it stands, null without a provider. */
  readonly budget: BudgetStatus | null
  /** The server flushes by itself after a turn ends. */
  readonly autoFlush: boolean
}

const READY_TTL_MS = 300_000
const FAILED_TTL_MS = 30_000

/** Flush, records, capabilities and readiness of extraction. */
export class Extraction {
  readonly #journal: SourceJournalPort
  readonly #model: BudgetedProvider | undefined
  readonly #budget: ExtractionBudget | undefined
  readonly #flusher: SourceFlusher
  #scheduler: FlushScheduler | undefined
  #probe: { value: string; until: number } | undefined

  constructor(journal: SourceJournalPort, options: ExtractionOptions = {}) {
    this.#journal = journal
    const provider = providerOf(options)
    if (provider !== undefined) {
      const defaults = provider.kind === 'openai' ? ENDPOINT_BUDGET_DEFAULT : HOST_BUDGET_DEFAULT
      this.#budget = new ExtractionBudget(
        { ...defaults, ...options.budget },
        {
          ...(options.budgetFile === undefined ? {} : { file: options.budgetFile }),
          ...(options.clock === undefined ? {} : { now: options.clock }),
        },
      )
      this.#model = new BudgetedProvider(provider, this.#budget)
    }
    const planner =
      this.#model === undefined
        ? new StructuredPlanner(journal)
        : new ModelPlanner({ model: this.#model, journal, onModelCall: options.onModelCall })
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
      scheduleSeconds:
        this.#scheduler?.intervalMs === undefined ? null : this.#scheduler.intervalMs / 1000,
      provider: this.#model?.kind ?? null,
      budget: this.#budget?.status() ?? null,
      autoFlush: this.#scheduler?.autoFlush ?? false,
    }
  }

  /** Non-blocking readiness checks: `inference.generation` when a model is configured. */
  async checks(): Promise<Record<string, string>> {
    if (this.#model === undefined) return {}
    const paused = this.#budget?.pauseMessage() ?? null
    if (paused !== null) return { 'inference.generation': paused }
    const now = Date.now()
    if (this.#probe === undefined || now >= this.#probe.until) {
      const value = await this.#model.probe()
      this.#probe = { value, until: now + (value === 'ready' ? READY_TTL_MS : FAILED_TTL_MS) }
    }
    return { 'inference.generation': this.#probe.value }
  }

  /** Calls, tokens and provider wall time since open (`GET /metrics`); null without a provider. */
  usage(): Readonly<ExtractionUsage> | null {
    return this.#model?.totals ?? null
  }

  /** The pause message while the budget holds extraction back, else null. */
  paused(): string | null {
    return this.#budget?.pauseMessage() ?? null
  }

  /** Starts the scheduler (once); see {@link FlushScheduler}. Nothing runs while paused. */
  startScheduler(target: SchedulerTarget, options: FlushSchedulerOptions): void {
    this.#scheduler ??= new FlushScheduler(target, { paused: () => this.paused(), ...options })
  }

  /** A source was captured (new, not a repeat): a turn-end capture arms the automatic flush. */
  captured(scopeId: string, metadata: Readonly<Record<string, unknown>> | undefined): void {
    this.#scheduler?.captured(scopeId, metadata)
  }

  /** The scheduler, when started (tests). */
  get scheduler(): FlushScheduler | undefined {
    return this.#scheduler
  }

  /** Stops the scheduler and waits for its running tick. */
  async stop(): Promise<void> {
    await this.#scheduler?.stop()
  }
}

function providerOf(options: ExtractionOptions): GenerationProvider | undefined {
  if (options.provider !== undefined) return options.provider
  if (options.host !== undefined) return HOST_PROVIDERS[options.host.kind](options.host.settings)
  if (options.generation !== undefined) return new OpenAiCompatibleChatModel(options.generation)
  return undefined
}
