/**
 * Retrieve-then-decide planning with a generation model (DESIGN §6, atomic-memory spec): (1) the
 * model proposes candidates from the window's free sources, citing them as evidence (structured
 * sources give their entries directly); (2) for each candidate the runtime retrieves every active
 * memory of the scope that passes the search's relevance admission, page by page with growing
 * limits (never the whole scope); (3) the model decides `create | update | merge | noop` per page;
 * (4) every decision is validated (targets shown to it, hence active and in the scope; evidence in
 * the window; text rules; secrets; time order) before the plan is applied with the cursor. Any
 * invalid output fails the whole window with `invalid_inference_output`; nothing runs inside a
 * database transaction here.
 */
import type { JsonValue } from '../core/canonical.js'
import { PowerContextError } from '../core/errors.js'
import type { Candidate, Refusal } from '../core/extraction-rules.js'
import { checkCandidate } from '../core/extraction-rules.js'
import { findSecret } from '../core/secret-rules.js'
import { sourceKind } from '../core/source-kinds.js'
import { normalizeText, normalizeTimestamp } from '../core/text-rules.js'
import { timeSlicer } from '../storage/engine/event-loop-slices.js'
import type { SourceJournalPort, SourceWindow, WindowSource } from '../storage/spi/flush-types.js'
import { RELATED_LIMIT_MAX } from '../storage/spi/flush-types.js'
import {
  DECIDE_SCHEMA,
  DECIDE_SYSTEM,
  type ModelDecision,
  PROMPT_VERSION,
  PROPOSE_SCHEMA,
  type ProposedCandidate,
  type ProposeKind,
  proposeSystem,
} from './extraction-prompts.js'
import type { FlushPlan, FlushPlanner } from './flush-planner.js'
import {
  candidateJson,
  outcomeOf,
  outcomesJson,
  sourceCandidates,
  windowJson,
} from './flush-planner.js'
import type { GenerationProvider } from './generation-provider.js'
import type { PlannedAction, RelatedView } from './plan-state.js'
import { PlanState } from './plan-state.js'

/** Options of the model planner. */
export interface ModelPlannerOptions {
  readonly model: GenerationProvider
  readonly journal: SourceJournalPort
  /** Characters of source content per proposing call (longer sources are cut). Default 48 000. */
  readonly proposeBudgetChars?: number
  /** Related memories per deciding call (the first page). Default 20. */
  readonly decideBatch?: number
}

type Positioned = Candidate & { position: number | null }

const invalid = (message: string): PowerContextError =>
  new PowerContextError('invalid_inference_output', `generation model: ${message}`)

/**
 * The window's free sources grouped by kind (kinds in order of first appearance, sources in window
 * order), each kind in batches of at most `budget` content characters: one proposing call each.
 */
function proposeBatches(
  sources: readonly WindowSource[],
  budget: number,
): { kind: ProposeKind; sources: WindowSource[] }[] {
  const byKind = new Map<ProposeKind, WindowSource[]>()
  for (const s of sources) {
    const kind = sourceKind(s) as ProposeKind
    const group = byKind.get(kind)
    if (group === undefined) byKind.set(kind, [s])
    else group.push(s)
  }
  const batches: { kind: ProposeKind; sources: WindowSource[] }[] = []
  for (const [kind, group] of byKind) {
    let current: WindowSource[] = []
    let used = 0
    for (const s of group) {
      const size = Math.min(s.content.length, budget)
      if (current.length > 0 && used + size > budget) {
        batches.push({ kind, sources: current })
        current = []
        used = 0
      }
      current.push(s)
      used += size
    }
    if (current.length > 0) batches.push({ kind, sources: current })
  }
  return batches
}

/** Plans a window with a generation model; see the module comment. */
export class ModelPlanner implements FlushPlanner {
  readonly mode = 'model' as const
  readonly promptVersion = PROMPT_VERSION
  readonly #model: GenerationProvider
  readonly #journal: SourceJournalPort
  readonly #budget: number
  readonly #batch: number

  constructor(options: ModelPlannerOptions) {
    this.#model = options.model
    this.#journal = options.journal
    this.#budget = Math.max(1000, options.proposeBudgetChars ?? 48_000)
    this.#batch = Math.max(1, Math.min(options.decideBatch ?? 20, RELATED_LIMIT_MAX))
  }

  get model(): string {
    return this.#model.model
  }

  async plan(window: SourceWindow): Promise<FlushPlan> {
    const pause = timeSlicer()
    const calls = { n: 0 }
    const positions = new Map(window.sources.map((s) => [s.sourceId, s]))
    const candidates: Candidate[] = []
    const refused: Refusal[] = []
    const yielded = new Map<string, { candidates: number; refused: readonly Refusal[] } | null>()
    const free: WindowSource[] = []
    for (const s of window.sources) {
      await pause()
      const y = sourceCandidates(s, { taskOutcomes: false })
      if (y === null) free.push(s)
      else candidates.push(...y.candidates)
      yielded.set(
        s.sourceId,
        y === null ? null : { candidates: y.candidates.length, refused: y.refused },
      )
    }
    const proposals: JsonValue[] = []
    for (const batch of proposeBatches(free, this.#budget)) {
      const proposed = await this.#propose(batch.kind, batch.sources, calls)
      proposals.push({
        source_kind: batch.kind,
        source_ids: batch.sources.map((s) => s.sourceId),
        candidates: proposed.candidates.length,
      })
      candidates.push(...proposed.candidates)
      refused.push(...proposed.refused)
    }
    const state = new PlanState()
    const retrievals: JsonValue[] = []
    const decisions: JsonValue[] = []
    for (const [i, c] of candidates.entries()) {
      await pause()
      const known = c.sources.map((id) => positions.get(id)?.position ?? 0)
      const positioned: Positioned = { ...c, position: Math.max(...known) }
      const { action, note, retrieval, raw } = await this.#decide(
        window.scopeId,
        positioned,
        state,
        calls,
      )
      const overridden = state.apply(positioned, action) ?? note
      retrievals.push({ candidate: i, ...retrieval })
      decisions.push({
        candidate: i,
        action: action.action,
        targets:
          action.action === 'update'
            ? [action.target]
            : action.action === 'merge'
              ? [...action.targets]
              : [],
        kind: action.action === 'noop' ? null : action.kind,
        text: action.action === 'noop' ? null : action.text,
        model_reason: raw?.reason ?? null,
        overridden,
      })
    }
    const outcomes = window.sources.map((s) => {
      const y = yielded.get(s.sourceId) ?? null
      if (y !== null) return outcomeOf(s, y, '')
      const cited = candidates.filter((c) => c.sources.includes(s.sourceId)).length
      const own = refused.filter((r) => r.sourceId === s.sourceId)
      return outcomeOf(
        s,
        { candidates: cited, refused: own },
        'the model proposed no memory from it',
      )
    })
    return {
      decisions: state.decisions(),
      outcomes,
      record: {
        mode: 'model',
        model: this.#model.model,
        promptVersion: PROMPT_VERSION,
        details: {
          window: windowJson(window),
          candidates: candidates.map(candidateJson),
          refused: refused.map((r) => ({ source_id: r.sourceId, reason: r.reason })),
          proposals,
          retrievals,
          decisions,
          sources: outcomesJson(outcomes),
          model_calls: calls.n,
        },
      },
    }
  }

  async #propose(
    kind: ProposeKind,
    batch: readonly WindowSource[],
    calls: { n: number },
  ): Promise<{ candidates: Candidate[]; refused: Refusal[] }> {
    const cap = this.#budget
    const user = JSON.stringify({
      sources: batch.map((s) => ({
        source_id: s.sourceId,
        position: s.position,
        media_type: s.mediaType,
        occurred_at: s.occurredAt,
        metadata: s.metadata,
        content: s.content.length > cap ? s.content.slice(0, cap) : s.content,
        truncated: s.content.length > cap,
      })),
    })
    calls.n += 1
    const { json } = await this.#model.complete({
      system: proposeSystem(kind),
      user,
      schemaName: 'memory_candidates',
      schema: PROPOSE_SCHEMA,
    })
    const answer = json as { candidates: ProposedCandidate[] }
    const byId = new Map(batch.map((s) => [s.sourceId, s]))
    const candidates: Candidate[] = []
    const refused: Refusal[] = []
    answer.candidates.forEach((p, i) => {
      const unknown = p.evidence.find((id) => !byId.has(id))
      if (unknown !== undefined)
        throw invalid(`candidate ${i} cites ${unknown}, not a source of the window`)
      try {
        normalizeText(p.text)
      } catch {
        throw invalid(`candidate ${i} text is blank or longer than the text limit`)
      }
      let observedAt: string | null
      try {
        observedAt = normalizeTimestamp(p.observed_at)
      } catch {
        throw invalid(`candidate ${i} observed_at is not an RFC 3339 time with a zone`)
      }
      const stated = p.evidence
        .map((id) => byId.get(id)?.occurredAt ?? null)
        .filter((t) => t !== null)
      observedAt ??= stated.length === 0 ? null : stated.sort().at(-1)!
      const checked = checkCandidate({
        kind: p.kind,
        text: p.text,
        observedAt,
        sources: p.evidence,
        origin: 'model',
        reason: null,
      })
      if ('refused' in checked) {
        for (const id of new Set(p.evidence))
          refused.push({ sourceId: id, entry: i, reason: checked.refused })
      } else candidates.push(checked.candidate)
    })
    return { candidates, refused }
  }

  async #decide(
    scopeId: string,
    c: Positioned,
    state: PlanState,
    calls: { n: number },
  ): Promise<{
    action: PlannedAction
    note: string | null
    raw: ModelDecision | null
    retrieval: Record<string, JsonValue>
  }> {
    const seen: string[] = []
    let limit = this.#batch
    let pages = 0
    let first = true
    let pending: { action: PlannedAction; note: string | null; raw: ModelDecision } | null = null
    const retrieval = (exhausted: boolean, mode: string): Record<string, JsonValue> => ({
      memory_ids: [...seen],
      pages,
      exhausted,
      mode,
    })
    for (;;) {
      const res = await this.#journal.related({ scopeId, query: c.text, limit })
      pages += 1
      const fresh = res.hits
        .map((h) => h.memoryRef.artifactId)
        .filter((id) => !seen.includes(id) && !state.absorbed(id))
      seen.push(...fresh)
      const exhausted = res.hits.length < limit || limit >= RELATED_LIMIT_MAX
      const views = (await this.#journal.current(scopeId, fresh)).map((r) => state.viewOf(r))
      const shown = first ? [...state.plannedViews(), ...views] : views
      if (shown.length > 0) {
        calls.n += 1
        const raw = await this.#ask(c, shown, pages, exhausted)
        const checked = validateDecision(raw, shown, c)
        first = false
        if (checked.action.action !== 'create' || exhausted)
          return { ...checked, raw, retrieval: retrieval(exhausted, res.mode) }
        pending = { ...checked, raw }
      }
      if (exhausted) {
        const fallback = pending ?? {
          action: { action: 'create' as const, kind: c.kind, text: c.text },
          note: null,
          raw: null,
        }
        return { ...fallback, retrieval: retrieval(true, res.mode) }
      }
      limit = Math.min(limit * 2, RELATED_LIMIT_MAX)
    }
  }

  async #ask(
    c: Positioned,
    shown: readonly RelatedView[],
    page: number,
    final: boolean,
  ): Promise<ModelDecision> {
    const user = JSON.stringify({
      candidate: {
        kind: c.kind,
        text: c.text,
        observed_at: c.observedAt,
        latest_source_position: c.position,
        evidence: [...c.sources],
      },
      related_memories: shown.map((v) => ({
        id: v.id,
        kind: v.kind,
        text: v.text,
        observed_at: v.observedAt,
        latest_source_position: v.position,
        planned_in_this_window: v.planned,
      })),
      batch: { number: page, final },
    })
    const { json } = await this.#model.complete({
      system: DECIDE_SYSTEM,
      user,
      schemaName: 'memory_decision',
      schema: DECIDE_SCHEMA,
    })
    return json as ModelDecision
  }
}

/**
 * Checks one decision against what the model was shown and the text rules; a text that looks
 * like a secret turns the decision into a noop (with a note). Anything else wrong fails the window.
 */
export function validateDecision(
  d: ModelDecision,
  shown: readonly RelatedView[],
  c: Candidate,
): { action: PlannedAction; note: string | null } {
  if (d.action === 'noop') return { action: { action: 'noop' }, note: null }
  const ids = new Map(shown.map((v) => [v.id, v]))
  const targets = [...d.targets]
  const text = d.text ?? (d.action === 'create' ? c.text : null)
  if (text === null) throw invalid(`${d.action} needs the resulting text`)
  let normalized: string
  try {
    normalized = normalizeText(text)
  } catch {
    throw invalid(`the ${d.action} text is blank or longer than the text limit`)
  }
  const secret = findSecret(normalized)
  if (secret !== undefined)
    return {
      action: { action: 'noop' },
      note: `refused: the text looks like a secret (${secret.rule})`,
    }
  const unknown = targets.find((t) => !ids.has(t))
  if (unknown !== undefined)
    throw invalid(`${d.action} names ${unknown}, not a related memory shown to it`)
  if (new Set(targets).size !== targets.length) throw invalid(`${d.action} names a memory twice`)
  if (d.action === 'create') {
    if (targets.length > 0) throw invalid('create must not name targets')
    return { action: { action: 'create', kind: d.kind ?? c.kind, text: normalized }, note: null }
  }
  if (d.action === 'update') {
    if (targets.length !== 1) throw invalid('update must name exactly one target')
    const target = targets[0] as string
    const kind = d.kind ?? (ids.get(target) as RelatedView).kind
    return { action: { action: 'update', target, kind, text: normalized }, note: null }
  }
  if (targets.length < 2) throw invalid('merge must name at least two targets')
  return {
    action: { action: 'merge', targets, kind: d.kind ?? c.kind, text: normalized },
    note: null,
  }
}
