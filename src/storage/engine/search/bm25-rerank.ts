import { bm25Order } from '../../../core/bm25.js'
import type { QueryPlan } from '../../../core/query-plan.js'
import type { DialectTx, TextHit } from '../../spi/dialect-tx.js'

/**
 * Admitted full-text candidates re-ranked by textbook BM25 (k1 = 0.9, b = 0.4) over
 * their stored Analyzer v1 tokens with the index's own statistics, ties in the index's order.
 * The candidate set is the index's (only the order moves); fewer than two candidates, or a
 * backend without statistics, keep the index's order. Each candidate comes with its tokens
 * (the split of `searchableText` admission already made).
 */
export async function bm25Rerank(
  tx: DialectTx,
  plan: QueryPlan,
  admitted: readonly { readonly hit: TextHit; readonly tokens: readonly string[] }[],
): Promise<readonly TextHit[]> {
  const hits = admitted.map((a) => a.hit)
  if (admitted.length < 2) return hits
  const stats = await tx.textStatistics(plan.terms)
  if (stats === undefined) return hits
  return bm25Order(admitted, (a) => a.tokens, plan.terms, stats).map((a) => a.hit)
}
