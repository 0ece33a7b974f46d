/**
 * Retrieve-then-decide planning with a generation model (docs/sources-and-flush.md,
 * "Extraction with a generation model"): (1) the model proposes candidates from all the window's free
 * sources at once, read whole ({@link proposeCandidates}; structured sources give their entries
 * directly); (2) for each candidate the runtime retrieves every active memory of the scope that
 * passes the search's relevance admission, paging until the search is exhausted; (3) one call
 * decides `create | update | merge | noop` for every candidate ({@link decideCandidates}); (4)
 * every decision is validated (targets shown to it, hence active and in the scope; evidence in the
 * window; text rules; secrets; time order) before the plan is applied with the cursor. The common
 * window costs two calls; more only when the sources or related memories do not fit one prompt.
 * When the window's commits touched paths of possibly stale memories, one more call re-checks
 * them (`freshness-recheck.ts`). Any invalid output fails the whole window with
 * `invalid_inference_output`; nothing runs inside a database transaction here.
 */
import { timeSlicer } from '../core/event-loop-slices.js'
import type { Candidate } from '../core/extraction-rules.js'
import type {
  FlushDecision,
  SourceJournalPort,
  SourceWindow,
  WindowSource,
} from '../storage/spi/flush-types.js'
import { PROMPT_VERSION } from './extraction-prompts.js'
import type { FlushPlan, FlushPlanner } from './flush-planner.js'
import {
  candidateJson,
  outcomeOf,
  outcomesJson,
  sourceCandidates,
  windowJson,
} from './flush-planner.js'
import { recheckStale } from './freshness-recheck.js'
import type { GenerationProvider } from './generation-provider.js'
import type { ModelCallRecord } from './model-call.js'
import { askModel, ModelUsageMeter, usageJson } from './model-call.js'
import { decideCandidates } from './model-decider.js'
import type { Ask } from './model-proposer.js'
import { proposeCandidates } from './model-proposer.js'
import type { PlannedCandidate } from './plan-state.js'

/** The memories a decision changes. */
const targetsOf = (d: FlushDecision): string[] =>
  d.op === 'create'
    ? []
    : d.op === 'merge'
      ? d.targets.map((t) => t.artifactId)
      : [d.target.artifactId]

/** Options of the model planner. */
export interface ModelPlannerOptions {
  readonly model: GenerationProvider
  readonly journal: SourceJournalPort
  /** Characters of source content per proposing call (longer sources are read in parts). Default 48 000. */
  readonly proposeBudgetChars?: number
  /** Characters of candidates and related memories per deciding call. Default 48 000. */
  readonly decideBudgetChars?: number
  /** Limit of a candidate's first search page (doubled per page until exhausted). Default 20. */
  readonly relatedFirstPage?: number
  /** Sees every model call (success or failure) as it finishes: usage, wall time, error. */
  readonly onModelCall?: ((call: ModelCallRecord) => void) | undefined
}

/** Plans a window with a generation model; see the module comment. */
export class ModelPlanner implements FlushPlanner {
  readonly mode = 'model' as const
  readonly promptVersion = PROMPT_VERSION
  readonly #model: GenerationProvider
  readonly #journal: SourceJournalPort
  readonly #proposeBudget: number
  readonly #decideBudget: number
  readonly #firstPage: number
  readonly #observe: ((call: ModelCallRecord) => void) | undefined

  constructor(options: ModelPlannerOptions) {
    this.#model = options.model
    this.#journal = options.journal
    this.#proposeBudget = Math.max(1000, options.proposeBudgetChars ?? 48_000)
    this.#decideBudget = Math.max(1000, options.decideBudgetChars ?? 48_000)
    this.#firstPage = Math.max(1, options.relatedFirstPage ?? 20)
    this.#observe = options.onModelCall
  }

  get model(): string {
    return this.#model.model
  }

  async plan(window: SourceWindow): Promise<FlushPlan> {
    const pause = timeSlicer()
    const started = performance.now()
    const meter = new ModelUsageMeter()
    const ask: Ask = (request) => askModel(this.#model, request, meter, this.#observe)
    const byId = new Map(window.sources.map((s) => [s.sourceId, s]))
    const candidates: Candidate[] = []
    const yielded = new Map<string, ReturnType<typeof sourceCandidates>>()
    const free: WindowSource[] = []
    for (const s of window.sources) {
      await pause()
      const y = sourceCandidates(s, { taskOutcomes: false })
      if (y === null) free.push(s)
      else candidates.push(...y.candidates)
      yielded.set(s.sourceId, y)
    }
    const proposed = await proposeCandidates(ask, free, this.#proposeBudget)
    candidates.push(...proposed.candidates)
    const placed = candidates.map((c): PlannedCandidate => {
      const evidence = c.sources.flatMap((id) => byId.get(id) ?? [])
      return {
        ...c,
        position: Math.max(...evidence.map((s) => s.position)),
        capturedAt:
          evidence
            .map((s) => s.capturedAt)
            .sort()
            .at(-1) ?? null,
      }
    })
    const decided = await decideCandidates({
      ask,
      journal: this.#journal,
      scopeId: window.scopeId,
      candidates: placed,
      budget: this.#decideBudget,
      firstPage: this.#firstPage,
      pause,
    })
    const planned = decided.state.decisions()
    const rechecked = await recheckStale({
      ask,
      journal: this.#journal,
      scopeId: window.scopeId,
      sources: window.sources,
      busy: new Set(planned.flatMap(targetsOf)),
      budget: this.#decideBudget,
    })
    const outcomes = window.sources.map((s) => {
      const y = yielded.get(s.sourceId) ?? null
      if (y !== null)
        return outcomeOf(s, { candidates: y.candidates.length, refused: y.refused }, '')
      const cited = candidates.filter((c) => c.sources.includes(s.sourceId)).length
      const own = proposed.refused.filter((r) => r.sourceId === s.sourceId)
      const read = proposed.read.get(s.sourceId)
      const whole =
        read === undefined || read.parts === 1
          ? ''
          : ` (read whole: ${read.read} characters in ${read.parts} parts)`
      return outcomeOf(
        s,
        { candidates: cited, refused: own },
        `the model proposed no memory from it${whole}`,
      )
    })
    const usage = { ...meter.totals(), wallMs: Math.round(performance.now() - started) }
    return {
      decisions: [...planned, ...rechecked.decisions],
      outcomes,
      usage,
      record: {
        mode: 'model',
        model: this.#model.model,
        promptVersion: PROMPT_VERSION,
        details: {
          window: windowJson(window),
          candidates: candidates.map(candidateJson),
          refused: proposed.refused.map((r) => ({ source_id: r.sourceId, reason: r.reason })),
          proposals: proposed.record,
          retrievals: decided.retrievals,
          decide_calls: decided.calls,
          decisions: decided.decisions,
          ...(rechecked.record === null ? {} : { freshness: rechecked.record }),
          sources: outcomesJson(outcomes),
          model_calls: usage.calls,
          model_usage: usageJson(usage),
        },
      },
    }
  }
}
