/**
 * The proposing step of model-driven flush: the window's free sources, all kinds together, read
 * whole — packed into as few calls as the character budget allows, a long source in consecutive
 * parts ({@link proposeCalls}). Proposals are checked like explicit writes; evidence must be
 * sources of the call.
 */
import type { JsonValue } from '../core/canonical.js'
import { PowerContextError } from '../core/errors.js'
import type { Candidate, Refusal } from '../core/extraction-rules.js'
import { checkCandidate } from '../core/extraction-rules.js'
import { normalizeText, normalizeTimestamp } from '../core/text-rules.js'
import type { WindowSource } from '../storage/spi/flush-types.js'
import { PROPOSE_SCHEMA, type ProposedCandidate, proposeSystem } from './extraction-prompts.js'
import type { SourcePart } from './source-parts.js'
import { proposeCalls } from './source-parts.js'

/** Asks the model one structured question (the planner's {@link askModel} binding). */
export type Ask = (request: {
  system: string
  user: string
  schemaName: string
  schema: Readonly<Record<string, unknown>>
}) => Promise<unknown>

/** What the proposing step yields, with its part of the decision record. */
export interface Proposals {
  readonly candidates: readonly Candidate[]
  readonly refused: readonly Refusal[]
  /** `[{call, parts: [{source_id, source_kind, part, parts, from, to, chars}], candidates}]`. */
  readonly record: JsonValue[]
  /** Per source: how much of it the model read (`[chars read, chars]`, always whole). */
  readonly read: ReadonlyMap<string, { readonly read: number; readonly parts: number }>
}

/** `invalid_inference_output` with the model named. */
export const invalidOutput = (message: string): PowerContextError =>
  new PowerContextError('invalid_inference_output', `generation model: ${message}`)

/** Proposes candidates from the free sources of a window; see the module comment. */
export async function proposeCandidates(
  ask: Ask,
  sources: readonly WindowSource[],
  budget: number,
): Promise<Proposals> {
  const candidates: Candidate[] = []
  const refused: Refusal[] = []
  const record: JsonValue[] = []
  const read = new Map<string, { read: number; parts: number }>()
  for (const [n, parts] of proposeCalls(sources, budget).entries()) {
    const got = await proposeOnce(ask, parts)
    candidates.push(...got.candidates)
    refused.push(...got.refused)
    for (const p of parts) {
      const r = read.get(p.source.sourceId) ?? { read: 0, parts: 0 }
      read.set(p.source.sourceId, { read: r.read + (p.to - p.from), parts: r.parts + 1 })
    }
    record.push({
      call: n + 1,
      parts: parts.map((p) => ({
        source_id: p.source.sourceId,
        source_kind: p.kind,
        part: p.part,
        parts: p.parts,
        from: p.from,
        to: p.to,
        chars: p.source.content.length,
      })),
      candidates: got.candidates.length,
    })
  }
  return { candidates, refused, record, read }
}

async function proposeOnce(
  ask: Ask,
  parts: readonly SourcePart[],
): Promise<{ candidates: Candidate[]; refused: Refusal[] }> {
  const user = JSON.stringify({
    sources: parts.map((p) => ({
      source_id: p.source.sourceId,
      kind: p.kind,
      position: p.source.position,
      media_type: p.source.mediaType,
      occurred_at: p.source.occurredAt,
      metadata: p.source.metadata,
      ...(p.parts === 1
        ? {}
        : {
            part: {
              number: p.part,
              of: p.parts,
              from: p.from,
              to: p.to,
              total: p.source.content.length,
            },
          }),
      content: p.source.content.slice(p.from, p.to),
    })),
  })
  const answer = (await ask({
    system: proposeSystem(parts.map((p) => p.kind)),
    user,
    schemaName: 'memory_candidates',
    schema: PROPOSE_SCHEMA,
  })) as { candidates: ProposedCandidate[] }
  const byId = new Map(parts.map((p) => [p.source.sourceId, p.source]))
  const candidates: Candidate[] = []
  const refused: Refusal[] = []
  answer.candidates.forEach((p, i) => {
    const unknown = p.evidence.find((id) => !byId.has(id))
    if (unknown !== undefined)
      throw invalidOutput(`candidate ${i} cites ${unknown}, not a source of the window`)
    try {
      normalizeText(p.text)
    } catch {
      throw invalidOutput(`candidate ${i} text is blank or longer than the text limit`)
    }
    let observedAt: string | null
    try {
      observedAt = normalizeTimestamp(p.observed_at)
    } catch {
      throw invalidOutput(`candidate ${i} observed_at is not an RFC 3339 time with a zone`)
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
