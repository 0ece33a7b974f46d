import { checkArtifactRef, checkLimit } from '../core/command-rules.js'
import { invalidRequest } from '../core/errors.js'
import type { StaleMark } from '../core/freshness.js'
import { checkScopeId } from '../core/ids.js'
import type { ArtifactRef } from '../core/memory-model.js'
import type { PreparedCandidate, PreparedContextRender } from '../core/prepared-context.js'
import {
  PREPARE_MAX_BYTES_DEFAULT,
  PREPARE_MAX_BYTES_MAX,
  PREPARE_MAX_BYTES_MIN,
  PREPARE_MAX_ITEMS,
  prepareItems,
  shownCandidates,
} from '../core/prepared-context.js'
import type { ReceiptInput } from '../core/receipt-rules.js'
import { SEARCH_LIMIT_MAX } from '../core/search-rules.js'
import type { MemoryBackend, SearchHit } from '../storage/spi/memory-backend.js'
import { RECENT_SCOPES_MAX } from '../storage/spi/memory-backend.js'
import { briefMemories } from './context-brief.js'

/** What a hook asks for: a recall for a prompt, or (without `query`) the session-start brief. */
export interface PrepareContextCommand {
  /** The scope the context is for (the project). */
  readonly scopeId: string
  /** Up to 8 more scopes read together (e.g. a personal `user:<name>` scope). */
  readonly scopeIds?: readonly string[] | undefined
  /** What to recall; absent for the brief. */
  readonly query?: string | undefined
  /** Budget of the whole content in UTF-8 bytes: 512–32,768, default 8,000. */
  readonly maxBytes?: number | undefined
  /**
   * Exact versions the caller already holds (up to 256): left out before the budget is spent.
   * A ref that matches nothing is ignored.
   */
  readonly excludeRefs?: readonly ArtifactRef[] | undefined
  /**
   * Who asks (the host, its session id, the hook event): a receipt of what was given is recorded
   * (docs/agents.md "Receipts"). Without it nothing is recorded.
   */
  readonly receipt?: ReceiptInput | undefined
}

/**
 * The prepared context and the exact versions it cites (`items`), the budget it was prepared
 * within, and whether every chosen candidate was served whole (none cut or left out to fit).
 */
export type PrepareContextResult = PreparedContextRender & {
  readonly maxBytes: number
  readonly withinBudget: boolean
}

/** Candidates searched per scope: the reference's 16, twice the items shown. */
export const PREPARE_SEARCH_LIMIT = 16
/** Most refs `excludeRefs` may hold. */
export const PREPARE_EXCLUDE_MAX = 256

const refKey = (ref: ArtifactRef): string => `${ref.artifactId}\u0000${ref.revision}`

/** The excluded versions as keys; each is a valid memory ref. */
function checkExcluded(cmd: PrepareContextCommand): Set<string> {
  const refs: unknown = cmd.excludeRefs ?? []
  if (!Array.isArray(refs) || refs.length > PREPARE_EXCLUDE_MAX)
    throw invalidRequest('exclude_refs', `must hold at most ${PREPARE_EXCLUDE_MAX} memory refs`)
  return new Set(refs.map((ref: unknown, i) => refKey(checkArtifactRef(ref, `exclude_refs[${i}]`))))
}

/** The scopes read: the primary one first, then the extra ones in the order given, each once. */
function checkScopes(cmd: PrepareContextCommand): string[] {
  const extra: unknown = cmd.scopeIds ?? []
  if (!Array.isArray(extra) || extra.length > RECENT_SCOPES_MAX - 1)
    throw invalidRequest('scope_ids', `must hold at most ${RECENT_SCOPES_MAX - 1} scope ids`)
  const primary = checkScopeId(cmd.scopeId)
  return [
    ...new Set([primary, ...extra.map((id: unknown, i) => checkScopeId(id, `scope_ids[${i}]`))]),
  ]
}

/**
 * Search hits of every scope ranked together: by score (the same RRF over the same channels in
 * every scope, so scores compare), a tie going to the earlier scope, then to the scope's own
 * order. A hit of an extra scope names its scope.
 */
function rankTogether(
  scopes: readonly string[],
  perScope: readonly (readonly SearchHit[])[],
): Ranked[] {
  const all = perScope.flatMap((hits, scope) => hits.map((hit, rank) => ({ hit, scope, rank })))
  all.sort((a, b) => b.hit.score - a.hit.score || a.scope - b.scope || a.rank - b.rank)
  return all.map(({ hit, scope }) => ({
    candidate: {
      memoryRef: hit.memoryRef,
      text: hit.text,
      ...tagOf(scopes, scope),
      ...(hit.stale === undefined ? {} : { stale: hit.stale }),
    },
    scope,
  }))
}

/** The `scopeId` an item of an extra scope carries (none for the primary scope). */
const tagOf = (scopes: readonly string[], scope: number) =>
  scope === 0 ? {} : { scopeId: scopes[scope] }

/** A candidate with the position of its scope in the request (0 = the primary scope). */
interface Ranked {
  readonly candidate: PreparedCandidate
  readonly scope: number
}

/**
 * Drops repeats, keeping the order: the same exact version once, and the same text once — at the
 * place of its best-ranked copy, citing the copy of the earliest scope (the project's own memory
 * before a personal copy of it).
 */
function distinct(ranked: readonly Ranked[]): PreparedCandidate[] {
  const byText = new Map<string, Ranked>()
  const refs = new Set<string>()
  for (const r of ranked) {
    const ref = refKey(r.candidate.memoryRef)
    if (refs.has(ref)) continue
    refs.add(ref)
    const seen = byText.get(r.candidate.text)
    if (seen === undefined || r.scope < seen.scope) byText.set(r.candidate.text, r)
  }
  const out: PreparedCandidate[] = []
  const placed = new Set<string>()
  for (const r of ranked) {
    if (placed.has(r.candidate.text)) continue
    placed.add(r.candidate.text)
    out.push((byText.get(r.candidate.text) ?? r).candidate)
  }
  return out
}

/**
 * The stale marks of the memories shown (docs/agents.md "Freshness"): one lookup per scope that
 * has any, after the candidates are chosen, so candidates never shown are not looked up.
 */
async function marksOf(
  backend: MemoryBackend,
  memories: readonly { readonly scopeId: string; readonly memoryRef: ArtifactRef }[],
): Promise<Map<string, StaleMark>> {
  const byScope = new Map<string, ArtifactRef[]>()
  for (const m of memories) byScope.set(m.scopeId, [...(byScope.get(m.scopeId) ?? []), m.memoryRef])
  const marks = new Map<string, StaleMark>()
  for (const [scopeId, refs] of byScope)
    for (const [id, mark] of await backend.freshness({ scopeId, refs })) marks.set(id, mark)
  return marks
}

/**
 * The candidates with the stale marks of those {@link prepareItems} may show (the first ones):
 * a shown candidate the search already looked up (`looked`, its ref key) keeps what the search
 * found; the others are looked up now.
 */
async function markShown(
  backend: MemoryBackend,
  primary: string,
  candidates: readonly PreparedCandidate[],
  looked: ReadonlySet<string>,
): Promise<PreparedCandidate[]> {
  const shown = shownCandidates(candidates).filter((c) => !looked.has(refKey(c.memoryRef)))
  if (shown.length === 0) return [...candidates]
  const marks = await marksOf(
    backend,
    shown.map((c) => ({ scopeId: c.scopeId ?? primary, memoryRef: c.memoryRef })),
  )
  if (marks.size === 0) return [...candidates]
  return candidates.map((c) => {
    const stale = marks.get(c.memoryRef.artifactId)
    return stale === undefined ? c : { ...c, stale }
  })
}

/**
 * Prepared context (docs/agents.md): with a `query`, an `auto` search of each scope (16
 * candidates each, more when versions are excluded) ranked together; without one, the brief (see
 * `context-brief.ts`). Excluded versions are dropped, the rest de-duplicated, then rendered within
 * the byte budget, first line naming the scope (see `core/prepared-context.ts`). A possibly stale
 * memory carries its stale note (docs/agents.md "Freshness"). Only reads: no write lock is taken, so a
 * running flush never delays it.
 * @throws PowerContextError `invalid_request` (scope ids, blank or oversized query, `max_bytes`
 *   outside 512–32,768, more than 256 or malformed `exclude_refs`), and the codes of `search`.
 */
export async function prepareContext(
  backend: MemoryBackend,
  cmd: PrepareContextCommand,
): Promise<PrepareContextResult> {
  const scopes = checkScopes(cmd)
  const maxBytes = checkLimit(cmd.maxBytes, 'max_bytes', {
    min: PREPARE_MAX_BYTES_MIN,
    max: PREPARE_MAX_BYTES_MAX,
    fallback: PREPARE_MAX_BYTES_DEFAULT,
  })
  const excluded = checkExcluded(cmd)
  let candidates: Ranked[]
  // Hits whose stale marks the searches looked up: the first of each scope, which are the items
  // shown when nothing is excluded or repeated (the common case costs no second lookup).
  let looked = new Set<string>()
  if (cmd.query === undefined) {
    const memories = await briefMemories(backend, scopes, excluded.size)
    const marks = await marksOf(backend, memories)
    candidates = memories.map((m) => {
      const scope = scopes.indexOf(m.scopeId)
      const stale = marks.get(m.memoryRef.artifactId)
      const tags = { ...tagOf(scopes, scope), ...(stale === undefined ? {} : { stale }) }
      return { candidate: { memoryRef: m.memoryRef, text: m.text, ...tags }, scope }
    })
  } else {
    const query = cmd.query
    const limit = Math.min(PREPARE_SEARCH_LIMIT + excluded.size, SEARCH_LIMIT_MAX)
    const results = await Promise.all(
      scopes.map((scopeId) =>
        backend.search({ scopeId, query, limit, mode: 'auto', staleMarks: PREPARE_MAX_ITEMS }),
      ),
    )
    looked = new Set(
      results.flatMap((r) => r.hits.slice(0, PREPARE_MAX_ITEMS).map((h) => refKey(h.memoryRef))),
    )
    candidates = rankTogether(
      scopes,
      results.map((r) => r.hits),
    )
  }
  let fresh = distinct(candidates.filter((r) => !excluded.has(refKey(r.candidate.memoryRef))))
  if (cmd.query !== undefined) fresh = await markShown(backend, scopes[0] as string, fresh, looked)
  const render = prepareItems(fresh, maxBytes, scopes[0])
  const chosen = shownCandidates(fresh).length
  const whole = render.items.length === chosen && render.items.every((i) => !i.truncated)
  return { ...render, maxBytes, withinBudget: whole }
}
