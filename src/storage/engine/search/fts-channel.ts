import { analyzeTokens } from '../../../core/analyzer.js'
import { timeSlicer } from '../../../core/event-loop-slices.js'
import { isActive } from '../../../core/memory-state.js'
import type { QueryPlan } from '../../../core/query-plan.js'
import {
  countsWhenUnknown,
  matchedTerms,
  planQuery,
  requiredSharedKnown,
  sharedCount,
} from '../../../core/query-plan.js'
import type { ChannelHit } from '../../../core/search-rules.js'
import { candidatePoolSize } from '../../../core/search-rules.js'
import type { CurrentMemory, DialectTx, TextHit } from '../../spi/dialect-tx.js'
import { versionRowProblems } from '../version-codec.js'
import { bm25Rerank } from './bm25-rerank.js'
import { candidateTokens } from './candidate-tokens.js'

/** The full-text channel's admitted hits in channel order, with each memory's kind and text. */
export interface FtsChannelResult {
  readonly hits: readonly ChannelHit[]
  readonly texts: ReadonlyMap<string, { readonly kind: string; readonly text: string }>
  /** True when these are every admitted match of the scope (see {@link FtsCandidates}). */
  readonly complete: boolean
}

/** Admitted full-text candidates, and whether the index had no candidates past the pool. */
export interface FtsCandidates {
  readonly hits: readonly TextHit[]
  /**
   * False when the pool was full: candidates the index ranks past it were never read and could
   * still pass admission (a pool of short texts matching one common word hides the rest).
   */
  readonly complete: boolean
}

/**
 * full-text candidates: the query is planned (`planQuery`: stop words dropped, English
 * stem prefixes), the adapter returns up to `max(limit * 4, 32)` candidates best bm25 first, each
 * with its head's Analyzer v1 tokens, and admission runs on those tokens, so rejected candidates
 * are never loaded — its share counts only the query words the scope knows ({@link knownShare}); two or more admitted candidates are then ordered by BM25 over their tokens
 * ({@link bm25Rerank}). The result is in channel order and still needs {@link recheckFts}; it says
 * whether the pool held every candidate of the index.
 */
export async function ftsCandidates(
  tx: DialectTx,
  q: {
    readonly scopeId: string
    readonly query: string
    readonly limit: number
    readonly kinds: readonly string[] | undefined
  },
): Promise<FtsCandidates> {
  const plan = planQuery(analyzeTokens(q.query))
  if (plan.terms.length === 0) return { hits: [], complete: true }
  const pool = candidatePoolSize(q.limit)
  const raw = await tx.searchText({
    scopeId: q.scopeId,
    terms: plan.terms,
    kinds: q.kinds,
    limit: pool,
  })
  // Each candidate's tokens, for admission and the re-rank (split once per text, then kept),
  // one candidate at a time with yields to the event loop: a pool of long texts is tens of ms.
  const pause = timeSlicer()
  const tokens: (readonly string[])[] = []
  const matched: boolean[][] = []
  for (const hit of raw) {
    await pause()
    tokens.push(candidateTokens(hit.searchableText))
    matched.push(matchedTerms(plan, tokens.at(-1)!))
  }
  const need = await knownShare(tx, q, plan, matched, raw.length >= pool)
  const admitted = raw.flatMap((hit, i) =>
    sharedCount(matched[i]!) >= need ? [{ hit, tokens: tokens[i]! }] : [],
  )
  return { hits: await bm25Rerank(tx, plan, admitted, pause), complete: raw.length < pool }
}

/**
 * The admission share over the terms the scope knows ({@link requiredSharedKnown}): a term is
 * known when a candidate matches it; when the candidates are not the scope's every match (the
 * pool is full), a word no candidate matches is looked up in the index on its own (one query,
 * one row) — only when leaving it out could lower the share.
 */
async function knownShare(
  tx: DialectTx,
  q: { readonly scopeId: string; readonly kinds: readonly string[] | undefined },
  plan: QueryPlan,
  matched: readonly (readonly boolean[])[],
  poolFull: boolean,
): Promise<number> {
  const known = plan.terms.map((_t, i) => matched.some((m) => m[i]))
  const unseen = plan.terms.flatMap((t, i) => (known[i] || countsWhenUnknown(t) ? [] : [i]))
  if (unseen.length === 0 || requiredSharedKnown(plan, known) === plan.requiredShared)
    return plan.requiredShared
  if (poolFull) {
    for (const i of unseen) {
      const terms = [plan.terms[i]!]
      const found = await tx.searchText({ scopeId: q.scopeId, terms, kinds: q.kinds, limit: 1 })
      known[i] = found.length > 0
    }
  }
  return requiredSharedKnown(plan, known)
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
  if (c === undefined || c.row.scopeId !== scopeId || !isActive(c.row.state)) return false
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
  const { hits: admitted, complete } = await ftsCandidates(tx, q)
  const pause = timeSlicer()
  const texts = new Map<string, { kind: string; text: string }>()
  const hits: ChannelHit[] = []
  let next = 0
  while (hits.length < wanted && next < admitted.length) {
    const batch = admitted.slice(next, next + Math.min(wanted - hits.length, admitted.length))
    next += batch.length
    await pause()
    const current = await tx.loadCurrent(batch.map((h) => h.memoryId))
    for (const hit of batch) {
      const c = current.get(hit.memoryId)
      if (!recheckFts(hit, c, q.scopeId)) continue
      hits.push({ memoryId: hit.memoryId, version: hit.version })
      texts.set(hit.memoryId, { kind: c.version.kind, text: c.version.text })
    }
  }
  return { hits, texts, complete: complete && next >= admitted.length }
}
