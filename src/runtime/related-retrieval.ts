/**
 * Retrieval of a candidate's comparison set: every active memory of the scope that passes the
 * search's relevance admission (hybrid when an embedding model is ready, else full text). The
 * search is read in pages of growing size until it reports itself complete — no total cap, and a
 * page with fewer admitted hits than its limit is not taken for the end while candidates past the
 * search's pool could still be admitted. Never the whole scope: only admitted memories.
 */
import type { SourceJournalPort } from '../storage/spi/flush-types.js'
import { RELATED_PAGE_MAX } from '../storage/spi/flush-types.js'

/** The related memories of one query, best first, and how they were found. */
export interface Retrieval {
  readonly memoryIds: readonly string[]
  /** Search calls made. */
  readonly pages: number
  readonly mode: string
}

/**
 * Every memory related to `query`, best first; `first` is the first page's limit (doubled per
 * page).
 */
export async function retrieveRelated(
  journal: SourceJournalPort,
  scopeId: string,
  query: string,
  first: number,
): Promise<Retrieval> {
  const ids: string[] = []
  const seen = new Set<string>()
  let limit = Math.max(1, first)
  for (let pages = 1; ; pages += 1) {
    const res = await journal.related({ scopeId, query, limit })
    for (const h of res.hits) {
      const id = h.memoryRef.artifactId
      if (!seen.has(id)) {
        seen.add(id)
        ids.push(id)
      }
    }
    if (res.complete || limit >= RELATED_PAGE_MAX) return { memoryIds: ids, pages, mode: res.mode }
    limit = Math.min(limit * 2, RELATED_PAGE_MAX)
  }
}
