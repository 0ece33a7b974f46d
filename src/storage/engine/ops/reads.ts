import { analyzeTokens } from '../../../core/analyzer.js'
import type { MemoryState } from '../../../core/memory-model.js'
import { admits, planQuery } from '../../../core/query-plan.js'
import type { ChannelHit } from '../../../core/search-rules.js'
import { candidatePoolSize } from '../../../core/search-rules.js'
import type { ChangeRow, CurrentMemory, DialectTx, TextHit } from '../../spi/dialect-tx.js'
import type {
  ChangesResult,
  GetResult,
  HistoryResult,
  ListResult,
} from '../../spi/memory-backend.js'
import { requireMemory, requireVersion } from '../guards.js'
import { versionRowProblems, viewOf } from '../version-codec.js'

/** Change rows as callers see them (the scope is implied by the request). */
export function toChange(row: ChangeRow): HistoryResult['transitions'][number] {
  return Object.freeze({
    seq: row.seq,
    op: row.op,
    memoryId: row.memoryId,
    fromRevision: row.fromRevision,
    toRevision: row.toRevision,
    fromState: row.fromState,
    toState: row.toState,
    reason: row.reason,
    operationId: row.operationId,
    at: row.at,
  })
}

/** DESIGN §3 get: an exact version (or the current one), hash-verified, under the current state. */
export async function getInTx(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; revision: number | undefined },
): Promise<GetResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const version = await requireVersion(tx, row.memoryId, cmd.revision ?? row.currentVersion)
  return { memory: viewOf(version, row), currentRevision: row.currentVersion, state: row.state }
}

/** DESIGN §3 history: every version and every state transition of one memory. */
export async function historyInTx(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string },
): Promise<HistoryResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const versions = await tx.listVersions(row.memoryId)
  const transitions = await tx.listChangesOfMemory(row.memoryId)
  const merges = await tx.mergesOfMemory(row.memoryId)
  return {
    memoryId: row.memoryId,
    state: row.state,
    currentRevision: row.currentVersion,
    versions: versions.map((v) => viewOf(v, row)),
    transitions: transitions.map(toChange),
    merges,
  }
}

/** DESIGN §3 list: one keyset page over memory ids, filtered by state and kind. */
export async function listInTx(
  tx: DialectTx,
  q: {
    scopeId: string
    states: MemoryState[]
    kinds: string[] | undefined
    after: string | undefined
    limit: number
  },
): Promise<ListResult> {
  const rows = await tx.listMemories({ ...q, limit: q.limit + 1 })
  const page = rows.slice(0, q.limit)
  const current = await tx.loadCurrent(page.map((r) => r.memoryId))
  const memories = page.map((r) => {
    const c = current.get(r.memoryId)
    if (c === undefined) throw new Error(`memory ${r.memoryId} vanished inside a read transaction`)
    return viewOf(c.version, c.row)
  })
  const last = page.at(-1)
  return { memories, nextAfter: rows.length > q.limit && last !== undefined ? last.memoryId : null }
}

/** DESIGN §2 changes: rows after `since` (exclusive), oldest first; never loads memory text. */
export async function changesInTx(
  tx: DialectTx,
  q: { scopeId: string; since: number; limit: number },
): Promise<ChangesResult> {
  const rows = await tx.listChanges(q.scopeId, q.since, q.limit)
  return { changes: rows.map(toChange), headSeq: await tx.headSeq(q.scopeId) }
}

/** The full-text channel's admitted hits in channel order, with each memory's kind and text. */
export interface FtsChannelResult {
  readonly hits: readonly ChannelHit[]
  readonly texts: ReadonlyMap<string, { readonly kind: string; readonly text: string }>
}

/**
 * DESIGN §5 full-text candidates: the query is planned (`planQuery`: stop words dropped, English
 * stem prefixes), the adapter returns up to `max(limit * 4, 32)` candidates best bm25 first, each
 * with its head's Analyzer v1 tokens, and admission runs on those tokens, so rejected candidates
 * are never loaded. The result is in channel order and still needs {@link recheckFts}.
 */
export async function ftsCandidates(
  tx: DialectTx,
  q: {
    readonly scopeId: string
    readonly query: string
    readonly limit: number
    readonly kinds: readonly string[] | undefined
  },
): Promise<TextHit[]> {
  const plan = planQuery(analyzeTokens(q.query))
  if (plan.terms.length === 0) return []
  const raw = await tx.searchText({
    scopeId: q.scopeId,
    terms: plan.terms,
    kinds: q.kinds,
    limit: candidatePoolSize(q.limit),
  })
  return raw.filter((h) => admits(plan, h.searchableText.split(' ')))
}

/**
 * The re-check of an admitted full-text candidate against the authoritative rows read in the
 * same transaction: active in the scope, at the candidate's version, hash-verified, and the head's
 * content hash equal to the version's (so the tokens admission saw are exactly that content's).
 */
export function recheckFts(
  hit: TextHit,
  c: CurrentMemory | undefined,
  scopeId: string,
): c is CurrentMemory {
  if (c === undefined || c.row.scopeId !== scopeId || c.row.state !== 'active') return false
  if (c.row.currentVersion !== hit.version || c.version.version !== hit.version) return false
  if (c.version.contentHash !== hit.contentHash) return false
  return versionRowProblems(c.version).length === 0
}

/**
 * The full-text channel alone (fts mode): admitted candidates are re-checked in channel order,
 * in batches, until `wanted` pass (the fts mode ranks in channel order, so it needs only the first
 * `limit`); a stale candidate never costs a hit.
 */
export async function ftsChannel(
  tx: DialectTx,
  q: {
    readonly scopeId: string
    readonly query: string
    readonly limit: number
    readonly kinds: readonly string[] | undefined
  },
  wanted = Infinity,
): Promise<FtsChannelResult> {
  const admitted = await ftsCandidates(tx, q)
  const texts = new Map<string, { kind: string; text: string }>()
  const hits: ChannelHit[] = []
  let next = 0
  while (hits.length < wanted && next < admitted.length) {
    const batch = admitted.slice(next, next + Math.min(wanted - hits.length, admitted.length))
    next += batch.length
    const current = await tx.loadCurrent(batch.map((h) => h.memoryId))
    for (const hit of batch) {
      const c = current.get(hit.memoryId)
      if (!recheckFts(hit, c, q.scopeId)) continue
      hits.push({ memoryId: hit.memoryId, version: hit.version })
      texts.set(hit.memoryId, { kind: c.version.kind, text: c.version.text })
    }
  }
  return { hits, texts }
}
