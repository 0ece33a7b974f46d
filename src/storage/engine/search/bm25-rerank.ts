import { bm25OrderSliced } from '../../../core/bm25.js'
import type { Pause } from '../../../core/event-loop-slices.js'
import type { QueryPlan } from '../../../core/query-plan.js'
import type { DialectTx, TextHit } from '../../spi/dialect-tx.js'

/**
 * Admitted full-text candidates re-ranked by textbook BM25 (k1 = 0.9, b = 0.4) over
 * their stored Analyzer v1 tokens with the index's own statistics, ties in the index's order.
 * The candidate set is the index's (only the order moves); fewer than two candidates, or a
 * backend without statistics, keep the index's order. Each candidate comes with its tokens
 * (the split of `searchableText` admission already made). Candidates are scored one at a time,
 * `pause()` awaited between them (the caller's yields to the event loop).
 */
export async function bm25Rerank(
  tx: DialectTx,
  plan: QueryPlan,
  admitted: readonly { readonly hit: TextHit; readonly tokens: readonly string[] }[],
  pause: Pause,
): Promise<readonly TextHit[]> {
  const hits = admitted.map((a) => a.hit)
  if (admitted.length < 2) return hits
  // The statistics are a few statements of their own: they start a slice rather than end one.
  await pause()
  const stats = await tx.textStatistics(plan.terms)
  if (stats === undefined) return hits
  const ordered = await bm25OrderSliced(admitted, (a) => a.tokens, plan.terms, stats, pause)
  return ordered.map((a) => a.hit)
}
