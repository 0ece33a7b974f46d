/**
 * The deciding step of model-driven flush: every candidate is shown every related memory that
 * passed admission ({@link retrieveRelated}), all candidates in one call when they fit the
 * character budget. Otherwise the calls are paged, never cut: each call takes the candidates and
 * related memories that fit, and a candidate with related memories left comes back in a later
 * call with its earlier result, so a decision on an early page still merges or updates against
 * the duplicates of a later one. Decisions are validated and folded into a {@link PlanState}.
 */
import type { JsonValue } from '../core/canonical.js'
import { findSecret } from '../core/secret-rules.js'
import { normalizeText } from '../core/text-rules.js'
import type { RelatedMemory, SourceJournalPort } from '../storage/spi/flush-types.js'
import { DECIDE_SCHEMA, DECIDE_SYSTEM, type ModelDecision } from './extraction-prompts.js'
import type { Ask } from './model-proposer.js'
import { invalidOutput } from './model-proposer.js'
import type { PlannedAction, PlannedCandidate, RelatedView } from './plan-state.js'
import { PlanState } from './plan-state.js'
import { retrieveRelated } from './related-retrieval.js'

/** What the deciding step needs. */
export interface DecideInput {
  readonly ask: Ask
  readonly journal: SourceJournalPort
  readonly scopeId: string
  readonly candidates: readonly PlannedCandidate[]
  /** Characters of candidates and related memories per deciding call. */
  readonly budget: number
  /** Limit of the first search page of each candidate (doubled per page). */
  readonly firstPage: number
  readonly pause: () => Promise<void>
}

/** The plan and the record parts of the deciding step. */
export interface Decided {
  readonly state: PlanState
  readonly retrievals: JsonValue[]
  readonly decisions: JsonValue[]
  readonly calls: JsonValue[]
}

interface Open {
  readonly index: number
  readonly id: string
  readonly c: PlannedCandidate
  readonly remaining: string[]
  /** Shown again on later calls: the memory holding its result, memories that already state it. */
  anchors: string[]
  result: string | null
  decided: boolean
}

const viewJson = (v: RelatedView): Record<string, JsonValue> => ({
  id: v.id,
  kind: v.kind,
  text: v.text,
  observed_at: v.observedAt,
  latest_source_position: v.position,
  captured_at: v.capturedAt,
  planned_in_this_window: v.planned,
})
const sizeOf = (v: RelatedView): number => JSON.stringify(viewJson(v)).length + 1

/** Decides every candidate of a window; see the module comment. */
export async function decideCandidates(input: DecideInput): Promise<Decided> {
  const { journal, scopeId, pause } = input
  const state = new PlanState()
  const retrievals: JsonValue[] = []
  const open: Open[] = []
  for (const [index, c] of input.candidates.entries()) {
    await pause()
    const r = await retrieveRelated(journal, scopeId, c.text, input.firstPage)
    retrievals.push({
      candidate: index,
      memory_ids: [...r.memoryIds],
      pages: r.pages,
      mode: r.mode,
    })
    open.push({
      index,
      id: `c${index + 1}`,
      c,
      remaining: [...r.memoryIds],
      anchors: [],
      result: null,
      decided: false,
    })
  }
  const decisions: JsonValue[] = []
  const calls: JsonValue[] = []
  const only = open.length === 1 ? open[0] : undefined
  if (only !== undefined && only.remaining.length === 0) {
    // One candidate and nothing related: there is nothing to decide.
    const create = { action: 'create', kind: only.c.kind, text: only.c.text } as const
    state.apply(only.c, create)
    decisions.push(decisionJson(only, null, create, null, null))
    return { state, retrievals, decisions, calls }
  }
  const loaded = new Map<string, RelatedMemory>()
  const load = async (ids: readonly string[]): Promise<void> => {
    const missing = ids.filter((id) => !loaded.has(id) && !id.startsWith('new:'))
    for (const r of await journal.current(scopeId, missing))
      loaded.set(r.memory.memoryRef.artifactId, r)
  }
  const viewOf = (id: string): RelatedView | undefined => {
    const now = state.resolve(id)
    if (state.absorbed(now)) return undefined
    const stored = loaded.get(now)
    return stored !== undefined ? state.viewOf(stored) : state.view(now)
  }
  for (let call = 1; open.some((o) => !o.decided || o.remaining.length > 0); call += 1) {
    await pause()
    const shown = new Map<string, RelatedView>()
    for (const v of state.plannedViews()) shown.set(v.id, v)
    let used = 400 + [...shown.values()].reduce((n, v) => n + sizeOf(v), 0)
    const batch: { o: Open; related: string[] }[] = []
    for (const o of open) {
      if (o.decided && o.remaining.length === 0) continue
      await load([...o.anchors, ...o.remaining.slice(0, 1)])
      const cost = JSON.stringify(o.c).length + 200
      const anchors = o.anchors.flatMap((id) => viewOf(id) ?? [])
      const extra = anchors.filter((v) => !shown.has(v.id)).reduce((n, v) => n + sizeOf(v), 0)
      const next = o.remaining.length === 0 ? undefined : viewOf(o.remaining[0] as string)
      const need = cost + extra + (next === undefined || shown.has(next.id) ? 0 : sizeOf(next))
      if (batch.length > 0 && used + need > input.budget) break
      used += cost + extra
      for (const v of anchors) shown.set(v.id, v)
      const related = anchors.map((v) => v.id)
      // The call's first candidate always takes one more related memory: every call progresses.
      let must = batch.length === 0 && o.decided
      while (o.remaining.length > 0) {
        const head = o.remaining[0] as string
        if (!loaded.has(head)) await load(o.remaining.slice(0, 64))
        const v = viewOf(head)
        // A memory costs its view once per call, and its id in every candidate's list.
        const size = v === undefined ? 0 : (shown.has(v.id) ? 0 : sizeOf(v)) + v.id.length + 3
        if (size > 0 && !must && related.length > 0 && used + size > input.budget) break
        o.remaining.shift()
        if (v === undefined) continue
        must = false
        used += size
        shown.set(v.id, v)
        if (!related.includes(v.id)) related.push(v.id)
      }
      batch.push({ o, related })
    }
    const final = open.every((o) => o.remaining.length === 0)
    const answer = (await input.ask({
      system: DECIDE_SYSTEM,
      user: JSON.stringify({
        candidates: batch.map(({ o, related }) => ({
          id: o.id,
          kind: o.c.kind,
          text: o.c.text,
          observed_at: o.c.observedAt,
          latest_source_position: o.c.position,
          captured_at: o.c.capturedAt,
          evidence: [...o.c.sources],
          related,
          earlier_result: o.decided ? o.result : null,
          more_related_in_later_batches: o.remaining.length > 0,
        })),
        related_memories: [...shown.values()].map(viewJson),
        batch: { number: call, final },
      }),
      schemaName: 'memory_decision',
      schema: DECIDE_SCHEMA,
    })) as { decisions: ModelDecision[] }
    calls.push({
      call,
      candidates: batch.map(({ o }) => o.index),
      related_memories: shown.size,
      final,
    })
    applyCall(state, batch, answer.decisions, shown, viewOf, decisions)
  }
  return { state, retrievals, decisions, calls }
}

/** Validates the decisions of one call (one per candidate shown) and folds them in order. */
function applyCall(
  state: PlanState,
  batch: readonly { o: Open }[],
  answers: readonly ModelDecision[],
  shown: ReadonlyMap<string, RelatedView>,
  viewOf: (id: string) => RelatedView | undefined,
  out: JsonValue[],
): void {
  const byCandidate = new Map<string, ModelDecision>()
  for (const d of answers) {
    if (!batch.some(({ o }) => o.id === d.candidate))
      throw invalidOutput(`a decision names ${d.candidate}, not a candidate of the call`)
    if (byCandidate.has(d.candidate)) throw invalidOutput(`${d.candidate} is decided twice`)
    byCandidate.set(d.candidate, d)
  }
  const earlier = new Map<string, Open>()
  for (const { o } of batch) {
    const raw = byCandidate.get(o.id)
    if (raw === undefined) throw invalidOutput(`no decision for ${o.id}`)
    // A target is a memory shown in the call or an earlier candidate of it (the memory its
    // decision produced); either is followed to where its content lives now in the plan.
    const targets: string[] = []
    for (const t of raw.targets) {
      const from = earlier.get(t)
      if (from === undefined && !shown.has(t))
        throw invalidOutput(`${raw.action} names ${t}, not a related memory shown to it`)
      if (from !== undefined && from.result === null)
        throw invalidOutput(`${o.id} names ${t}, whose decision produced no memory`)
      const now = state.resolve(from === undefined ? t : (from.result as string))
      if (!targets.includes(now)) targets.push(now)
    }
    const visible = targets.flatMap((t) => viewOf(t) ?? [])
    const asked =
      raw.action === 'merge' && targets.length === 1 ? { ...raw, action: 'update' as const } : raw
    const checked = validateDecision({ ...asked, targets }, visible, o.c)
    const action = o.decided ? continued(checked.action, o.result, state) : checked.action
    const { note, result } = state.apply(o.c, action)
    out.push(decisionJson(o, raw, action, raw.reason, note ?? checked.note))
    if (raw.action === 'noop') o.anchors.push(...visible.map((v) => v.id))
    if (result !== null) o.result = result
    if (o.result !== null) {
      const mine = state.resolve(o.result)
      o.anchors = [mine, ...o.anchors.filter((a) => a !== mine)]
    }
    o.decided = true
    earlier.set(o.id, o)
  }
}

/**
 * A later call's decision for a candidate that already has a result: its content stays in one
 * memory. `create` keeps the earlier result; an update of another memory merges the two; a merge
 * includes it.
 */
function continued(a: PlannedAction, result: string | null, state: PlanState): PlannedAction {
  if (result === null) return a
  const mine = state.resolve(result)
  if (a.action === 'create') return { action: 'noop' }
  if (a.action === 'update' && a.target !== mine)
    return { action: 'merge', targets: [mine, a.target], kind: a.kind, text: a.text }
  if (a.action === 'merge' && !a.targets.includes(mine))
    return { ...a, targets: [mine, ...a.targets] }
  return a
}

function decisionJson(
  o: Open,
  raw: ModelDecision | null,
  a: PlannedAction,
  reason: string | null,
  overridden: string | null,
): JsonValue {
  return {
    candidate: o.index,
    model_action: raw?.action ?? null,
    action: a.action,
    targets: a.action === 'update' ? [a.target] : a.action === 'merge' ? [...a.targets] : [],
    kind: a.action === 'noop' || !('kind' in a) ? null : a.kind,
    text: a.action === 'noop' || !('text' in a) ? null : a.text,
    model_reason: reason,
    overridden,
  }
}

/**
 * Checks one decision against what the model was shown and the text rules; a text that looks
 * like a secret turns the decision into a noop (with a note). Anything else wrong fails the window.
 */
export function validateDecision(
  d: ModelDecision,
  shown: readonly RelatedView[],
  c: PlannedCandidate,
): { action: PlannedAction; note: string | null } {
  if (d.action === 'noop') return { action: { action: 'noop' }, note: null }
  const ids = new Map(shown.map((v) => [v.id, v]))
  const targets = [...d.targets]
  const text = d.text ?? (d.action === 'create' ? c.text : null)
  if (text === null) throw invalidOutput(`${d.action} needs the resulting text`)
  let normalized: string
  try {
    normalized = normalizeText(text)
  } catch {
    throw invalidOutput(`the ${d.action} text is blank or longer than the text limit`)
  }
  const secret = findSecret(normalized)
  if (secret !== undefined)
    return {
      action: { action: 'noop' },
      note: `refused: the text looks like a secret (${secret.rule})`,
    }
  const unknown = targets.find((t) => !ids.has(t))
  if (unknown !== undefined)
    throw invalidOutput(`${d.action} names ${unknown}, not a related memory shown to it`)
  if (new Set(targets).size !== targets.length)
    throw invalidOutput(`${d.action} names a memory twice`)
  if (d.action === 'create') {
    if (targets.length > 0) throw invalidOutput('create must not name targets')
    return { action: { action: 'create', kind: d.kind ?? c.kind, text: normalized }, note: null }
  }
  if (d.action === 'update') {
    if (targets.length !== 1) throw invalidOutput('update must name exactly one target')
    const target = targets[0] as string
    const kind = d.kind ?? (ids.get(target) as RelatedView).kind
    return { action: { action: 'update', target, kind, text: normalized }, note: null }
  }
  if (targets.length < 2) throw invalidOutput('merge must name at least two targets')
  return {
    action: { action: 'merge', targets, kind: d.kind ?? c.kind, text: normalized },
    note: null,
  }
}
