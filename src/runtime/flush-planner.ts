/**
 * Planning of a flush window outside any transaction (docs/sources-and-flush.md). Without a generation model the
 * {@link StructuredPlanner} turns explicit structured sources into candidates and a task outcome
 * into one mechanical `working_note`; every other source is a no-op for memory, reported as such.
 * It never derives a fact, decision or constraint from free text. Each candidate becomes a
 * `create` decision; an exact duplicate of an active memory is `unchanged` when applied.
 */
import type { JsonValue } from '../core/canonical.js'
import { timeSlicer } from '../core/event-loop-slices.js'
import type { Candidate, Refusal } from '../core/extraction-rules.js'
import {
  mediaTypeEssence,
  MEMORY_MEDIA_TYPE,
  structuredCandidates,
  TASK_OUTCOME_MEDIA_TYPE,
  taskOutcomeCandidates,
} from '../core/extraction-rules.js'
import { sourceKind } from '../core/source-kinds.js'
import type {
  FlushDecision,
  FlushRecordDraft,
  SourceJournalPort,
  SourceWindow,
  WindowSource,
} from '../storage/spi/flush-types.js'
import type { WindowUsage } from './model-call.js'

/** What one source of the window contributed. */
export interface SourceOutcome {
  readonly sourceId: string
  readonly position: number
  readonly mediaType: string
  /** `candidates`: it yielded candidates; `no_op`: nothing for memory; `refused`: all were refused. */
  readonly outcome: 'candidates' | 'no_op' | 'refused'
  readonly candidates: number
  readonly refused: readonly Refusal[]
  /** Why a source is a no-op, when it is one. */
  readonly note: string | null
}

/** A planned window: decisions to apply with the cursor, the record to store, per-source outcomes. */
export interface FlushPlan {
  readonly decisions: readonly FlushDecision[]
  readonly record: FlushRecordDraft
  readonly outcomes: readonly SourceOutcome[]
  /** What the window's model calls cost; absent without a model. */
  readonly usage?: WindowUsage
}

/** Turns a window into a plan; never writes. */
export interface FlushPlanner {
  readonly mode: 'structured' | 'model'
  /** The generation model id and prompt version, null without a model (decision records). */
  readonly model: string | null
  readonly promptVersion: string | null
  plan(window: SourceWindow): Promise<FlushPlan>
}

/** The media types the structured (no model) path understands. */
export const STRUCTURED_MEDIA_TYPES = [MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE] as const

/** Candidates a source yields without a model, or null when it is free content. */
export function sourceCandidates(
  source: WindowSource,
  options: { readonly taskOutcomes: boolean },
): { candidates: readonly Candidate[]; refused: readonly Refusal[] } | null {
  const essence = mediaTypeEssence(source.mediaType)
  if (essence === MEMORY_MEDIA_TYPE) return structuredCandidates(source)
  if (essence === TASK_OUTCOME_MEDIA_TYPE && options.taskOutcomes)
    return taskOutcomeCandidates(source)
  return null
}

/** The per-source outcome line of a source and what it yielded. */
export function outcomeOf(
  source: WindowSource,
  yielded: { candidates: number; refused: readonly Refusal[] } | null,
  note: string,
): SourceOutcome {
  const refused = yielded?.refused ?? []
  const outcome =
    yielded !== null && yielded.candidates > 0
      ? 'candidates'
      : refused.length > 0
        ? 'refused'
        : 'no_op'
  return Object.freeze({
    sourceId: source.sourceId,
    position: source.position,
    mediaType: source.mediaType,
    outcome,
    candidates: yielded?.candidates ?? 0,
    refused,
    note: outcome === 'no_op' ? note : null,
  })
}

/** JSON of a candidate for the decision record. */
export function candidateJson(c: Candidate, index: number): JsonValue {
  return {
    index,
    origin: c.origin,
    kind: c.kind,
    text: c.text,
    observed_at: c.observedAt,
    evidence: [...c.sources],
  }
}

/** JSON of the per-source outcomes and refusals for the decision record. */
export function outcomesJson(outcomes: readonly SourceOutcome[]): JsonValue {
  return outcomes.map((o) => ({
    source_id: o.sourceId,
    position: o.position,
    media_type: o.mediaType,
    outcome: o.outcome,
    candidates: o.candidates,
    refused: o.refused.map((r) => ({ entry: r.entry, reason: r.reason })),
    note: o.note,
  }))
}

/** The window part of a decision record. */
export function windowJson(window: SourceWindow): JsonValue {
  const last = window.sources.at(-1)?.position ?? window.cursor.position
  return {
    from_position: window.cursor.position,
    to_position: last,
    source_ids: window.sources.map((s) => s.sourceId),
    isolating: window.isolating,
  }
}

/**
 * The no-model planner: structured entries and task outcomes become `create` decisions; a
 * candidate whose kind and text equal an active memory's current version (whatever its evidence)
 * or an earlier candidate of the window is a no-op (the earlier candidate gains its evidence).
 * Other sources are no-ops. It never updates or merges: that needs a model's judgement.
 */
export class StructuredPlanner implements FlushPlanner {
  readonly mode = 'structured' as const
  readonly model = null
  readonly promptVersion = null
  readonly #journal: SourceJournalPort

  constructor(journal: SourceJournalPort) {
    this.#journal = journal
  }

  async plan(window: SourceWindow): Promise<FlushPlan> {
    const pause = timeSlicer()
    const candidates: Candidate[] = []
    const outcomes: SourceOutcome[] = []
    for (const source of window.sources) {
      await pause()
      const yielded = sourceCandidates(source, { taskOutcomes: true })
      candidates.push(...(yielded?.candidates ?? []))
      outcomes.push(
        outcomeOf(
          source,
          yielded === null
            ? null
            : { candidates: yielded.candidates.length, refused: yielded.refused },
          `evidence only: a ${sourceKind(source)} source (${mediaTypeEssence(source.mediaType) || 'no media type'}) needs a generation model`,
        ),
      )
    }
    const creates = new Map<string, FlushDecision & { op: 'create'; sources: string[] }>()
    const decided: JsonValue[] = []
    for (const [i, c] of candidates.entries()) {
      await pause()
      const key = `${c.kind}\u0000${c.text}`
      const earlier = creates.get(key)
      if (earlier !== undefined) {
        earlier.sources.push(...c.sources.filter((s) => !earlier.sources.includes(s)))
        decided.push({
          candidate: i,
          action: 'noop',
          targets: [],
          note: 'same as an earlier candidate',
        })
        continue
      }
      const duplicate = await this.#activeDuplicate(window.scopeId, c)
      if (duplicate !== undefined) {
        decided.push({
          candidate: i,
          action: 'noop',
          targets: [duplicate],
          note: 'exact duplicate',
        })
        continue
      }
      creates.set(key, {
        op: 'create',
        kind: c.kind,
        text: c.text,
        sources: [...c.sources],
        observedAt: c.observedAt,
        reason: c.reason,
      })
      decided.push({ candidate: i, action: 'create', targets: [] })
    }
    return {
      decisions: [...creates.values()],
      outcomes,
      record: {
        mode: 'structured',
        model: null,
        promptVersion: null,
        details: {
          window: windowJson(window),
          candidates: candidates.map(candidateJson),
          retrievals: [],
          decisions: decided,
          sources: outcomesJson(outcomes),
          model_calls: 0,
        },
      },
    }
  }

  /** The id of an active memory with the candidate's kind and text, if the search finds one. */
  async #activeDuplicate(scopeId: string, c: Candidate): Promise<string | undefined> {
    const { hits } = await this.#journal.related({ scopeId, query: c.text, limit: 20 })
    return hits.find((h) => h.kind === c.kind && h.text === c.text)?.memoryRef.artifactId
  }
}
