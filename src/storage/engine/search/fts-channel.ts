import { analyzeTokens } from '../../../core/analyzer.js'
import { isActive } from '../../../core/memory-state.js'
import { admits, planQuery } from '../../../core/query-plan.js'
import type { ChannelHit } from '../../../core/search-rules.js'
import { candidatePoolSize } from '../../../core/search-rules.js'
import type { CurrentMemory, DialectTx, TextHit } from '../../spi/dialect-tx.js'
import { versionRowProblems } from '../version-codec.js'
import { bm25Rerank } from './bm25-rerank.js'

/** The full-text channel's admitted hits in channel order, with each memory's kind and text. */
export interface FtsChannelResult {
  readonly hits: readonly ChannelHit[]
  readonly texts: ReadonlyMap<string, { readonly kind: string; readonly text: string }>
}

/**
 * DESIGN §5 full-text candidates: the query is planned (`planQuery`: stop words dropped, English
 * stem prefixes), the adapter returns up to `max(limit * 4, 32)` candidates best bm25 first, each
 * with its head's Analyzer v1 tokens, and admission runs on those tokens, so rejected candidates
 * are never loaded; two or more admitted candidates are then ordered by BM25 over their tokens
 * ({@link bm25Rerank}). The result is in channel order and still needs {@link recheckFts}.
 */
export async function ftsCandidates(
  tx: DialectTx,
  q: {
    readonly scopeId: string
    readonly query: string
    readonly limit: number
    readonly kinds: readonly string[] | undefined
  },
): Promise<readonly TextHit[]> {
  const plan = planQuery(analyzeTokens(q.query))
  if (plan.terms.length === 0) return []
  const raw = await tx.searchText({
    scopeId: q.scopeId,
    terms: plan.terms,
    kinds: q.kinds,
    limit: candidatePoolSize(q.limit),
  })
  const admitted = raw.filter((h) => admits(plan, h.searchableText.split(' ')))
  return bm25Rerank(tx, plan, admitted)
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
