/**
 * Candidate rules of flush (docs/sources-and-flush.md, "Candidates and admission"): which sources
 * carry structured candidates, how a task outcome becomes one mechanical `working_note`, the
 * checks every candidate passes (the same text rules as explicit writes, plus the secret rule),
 * and the time order used for conflicts. Pure functions, no I/O.
 */
import { PowerContextError } from './errors.js'
import { findSecret } from './secret-rules.js'
import {
  MAX_TEXT_BYTES,
  normalizeKind,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
  utf8Length,
} from './text-rules.js'

/** Structured candidates: `{entries: [{kind, text, observed_at?, reason?}]}` (1–100 entries). */
export const MEMORY_MEDIA_TYPE = 'application/vnd.powercontext.memory+json'
/**
 * A task outcome: `{task, outcome, summary, changed_paths?, git_head?, verification?}`. Without a
 * model it yields at most one mechanical `working_note`.
 */
export const TASK_OUTCOME_MEDIA_TYPE = 'application/vnd.powercontext.task-outcome+json'
/** Entries one structured source may carry. */
export const MAX_STRUCTURED_ENTRIES = 100

/** Where a candidate came from. */
export type CandidateOrigin = 'structured' | 'task_outcome' | 'model'

/** A memory proposed by a flush: untrusted until checked; evidence is window source ids. */
export interface Candidate {
  readonly kind: string
  readonly text: string
  readonly observedAt: string | null
  /** Evidence: ids of sources of the window (at least one). */
  readonly sources: readonly string[]
  readonly origin: CandidateOrigin
  readonly reason: string | null
}

/** A candidate or an entry that was refused, and why (reported, never written). */
export interface Refusal {
  readonly sourceId: string
  /** Index of the entry inside its source (structured sources), else null. */
  readonly entry: number | null
  readonly reason: string
}

/** The type/subtype of a media type, lower-cased, without parameters. */
export function mediaTypeEssence(mediaType: string): string {
  return (mediaType.split(';')[0] ?? '').trim().toLowerCase()
}

const messageOf = (err: unknown): string =>
  err instanceof PowerContextError ? err.message : String((err as Error)?.message ?? err)

/**
 * Checks one candidate with the rules of explicit writes (kind, text, observed_at, reason) and
 * the secret rule. Returns the normalised candidate, or the reason it is refused.
 */
export function checkCandidate(c: Candidate): { candidate: Candidate } | { refused: string } {
  try {
    const text = normalizeText(c.text)
    const secret = findSecret(text)
    if (secret !== undefined) return { refused: `looks like a secret (${secret.rule})` }
    return {
      candidate: Object.freeze({
        ...c,
        kind: normalizeKind(c.kind),
        text,
        observedAt: normalizeTimestamp(c.observedAt),
        reason: normalizeReason(c.reason),
        sources: Object.freeze([...new Set(c.sources)]),
      }),
    }
  } catch (err) {
    return { refused: messageOf(err) }
  }
}

/** What a source contributes without a model. */
export interface SourceCandidates {
  readonly candidates: readonly Candidate[]
  readonly refused: readonly Refusal[]
}

const ENTRY_FIELDS = new Set(['kind', 'text', 'observed_at', 'reason'])

function parseJsonObject(content: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(content) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Candidates of a `application/vnd.powercontext.memory+json` source: one per valid entry, with
 * the source as evidence and, when the entry has no `observed_at`, the source's `occurred_at`.
 * A malformed source or entry is refused (reported), never guessed at.
 */
export function structuredCandidates(source: {
  readonly sourceId: string
  readonly content: string
  readonly occurredAt: string | null
}): SourceCandidates {
  const refuse = (reason: string, entry: number | null = null): SourceCandidates => ({
    candidates: [],
    refused: [{ sourceId: source.sourceId, entry, reason }],
  })
  const body = parseJsonObject(source.content)
  if (body === undefined) return refuse('content is not a JSON object')
  const extra = Object.keys(body).filter((k) => k !== 'entries')
  if (extra.length > 0) return refuse(`unknown field ${extra[0]}`)
  const entries = body['entries']
  if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_STRUCTURED_ENTRIES)
    return refuse(`entries must be an array of 1–${MAX_STRUCTURED_ENTRIES} entries`)
  const candidates: Candidate[] = []
  const refused: Refusal[] = []
  entries.forEach((raw: unknown, i) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      refused.push({ sourceId: source.sourceId, entry: i, reason: 'entry must be an object' })
      return
    }
    const e = raw as Record<string, unknown>
    const unknown = Object.keys(e).find((k) => !ENTRY_FIELDS.has(k))
    if (unknown !== undefined) {
      refused.push({ sourceId: source.sourceId, entry: i, reason: `unknown field ${unknown}` })
      return
    }
    const checked = checkCandidate({
      kind: e['kind'] as string,
      text: e['text'] as string,
      observedAt: (e['observed_at'] as string | null | undefined) ?? source.occurredAt,
      sources: [source.sourceId],
      origin: 'structured',
      reason: (e['reason'] as string | null | undefined) ?? null,
    })
    if ('refused' in checked)
      refused.push({ sourceId: source.sourceId, entry: i, reason: checked.refused })
    else candidates.push(checked.candidate)
  })
  return { candidates, refused }
}

const OUTCOME_FIELDS = ['task', 'outcome', 'summary', 'changed_paths', 'git_head', 'verification']

function cut(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text
  let out = ''
  for (const ch of text) {
    if (utf8Length(out + ch) > maxBytes - 3) break
    out += ch
  }
  return `${out}…`
}

/**
 * The one mechanical `working_note` of a task-outcome source (no model): the task, its outcome,
 * the summary and, when given, changed paths, git head and verification, each on its own line,
 * cut to the text limit. Never a fact, decision or constraint. No note when the summary is blank.
 */
export function taskOutcomeCandidates(source: {
  readonly sourceId: string
  readonly content: string
  readonly occurredAt: string | null
}): SourceCandidates {
  const refuse = (reason: string): SourceCandidates => ({
    candidates: [],
    refused: [{ sourceId: source.sourceId, entry: null, reason }],
  })
  const body = parseJsonObject(source.content)
  if (body === undefined) return refuse('content is not a JSON object')
  const unknown = Object.keys(body).find((k) => !OUTCOME_FIELDS.includes(k))
  if (unknown !== undefined) return refuse(`unknown field ${unknown}`)
  const str = (k: string): string | undefined =>
    typeof body[k] === 'string' && (body[k] as string).trim() !== ''
      ? (body[k] as string).trim()
      : undefined
  const task = str('task')
  const outcome = str('outcome')
  if (task === undefined || outcome === undefined)
    return refuse('task and outcome must be non-blank strings')
  const summary = str('summary')
  if (summary === undefined) return { candidates: [], refused: [] }
  const paths = body['changed_paths']
  if (paths !== undefined && (!Array.isArray(paths) || paths.some((p) => typeof p !== 'string')))
    return refuse('changed_paths must be an array of strings')
  const lines = [`Task: ${task}`, `Outcome: ${outcome}`, `Summary: ${summary}`]
  if (Array.isArray(paths) && paths.length > 0)
    lines.push(`Changed paths: ${(paths as string[]).join(', ')}`)
  const head = str('git_head')
  if (head !== undefined) lines.push(`Git head: ${head}`)
  const verification = str('verification')
  if (verification !== undefined) lines.push(`Verification: ${verification}`)
  const checked = checkCandidate({
    kind: 'working_note',
    text: cut(lines.join('\n').normalize('NFC'), MAX_TEXT_BYTES),
    observedAt: source.occurredAt,
    sources: [source.sourceId],
    origin: 'task_outcome',
    reason: null,
  })
  return 'refused' in checked
    ? refuse(checked.refused)
    : { candidates: [checked.candidate], refused: [] }
}

/** The time of a fact for conflict order: `observed_at`, then source position, then capture time. */
export interface Recency {
  readonly observedAt: string | null
  /** Highest journal position among the evidence sources, or null when none is known. */
  readonly position: number | null
  /**
   * When it was captured (RFC 3339, UTC): the latest capture of a candidate's evidence sources;
   * for a stored memory without a known position, when its current version was written.
   */
  readonly capturedAt: string | null
}

/**
 * For the same fact under the same conditions the newer one wins: by `observed_at` when both
 * have one, else by source position (the scope's capture order) when both have one, else by
 * capture time. `older` means `a` must not overwrite `b`; `unknown` only when neither order
 * applies.
 */
export function compareRecency(a: Recency, b: Recency): 'older' | 'newer' | 'same' | 'unknown' {
  const order = <T>(x: T, y: T): 'older' | 'newer' | 'same' =>
    x === y ? 'same' : x < y ? 'older' : 'newer'
  if (a.observedAt !== null && b.observedAt !== null) return order(a.observedAt, b.observedAt)
  if (a.position !== null && b.position !== null) return order(a.position, b.position)
  if (a.capturedAt !== null && b.capturedAt !== null)
    return order(Date.parse(a.capturedAt), Date.parse(b.capturedAt))
  return 'unknown'
}
