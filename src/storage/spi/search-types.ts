import type { StaleMark } from '../../core/freshness.js'
import type { ArtifactRef } from '../../core/memory-model.js'
import type { SearchChannel } from '../../core/search-rules.js'

/** Search modes a caller may ask for; the response reports the one actually used. */
export const SEARCH_MODES = ['auto', 'fts', 'vector', 'hybrid'] as const
export type SearchMode = (typeof SEARCH_MODES)[number]
export type UsedSearchMode = Exclude<SearchMode, 'auto'>

export interface SearchCommand {
  readonly scopeId: string
  readonly query: string
  /** 1–50, default 8. */
  readonly limit?: number | undefined
  /** Default `auto`. */
  readonly mode?: SearchMode | undefined
  readonly kinds?: readonly string[] | undefined
  /**
   * False: the hits carry no stale marks (a caller that shows only some of them looks those up
   * with `freshness`). A number n: only the first n hits are looked up (in the search's own
   * transaction), the others carry none. Default true: every hit.
   */
  readonly staleMarks?: boolean | number | undefined
}

export interface SearchHit {
  readonly memoryRef: ArtifactRef
  readonly kind: string
  readonly text: string
  readonly score: number
  readonly matchedBy: readonly SearchChannel[]
  /** Set when the memory is possibly stale (docs/agents.md "Freshness"). */
  readonly stale?: StaleMark | undefined
}

export interface SearchResult {
  readonly mode: UsedSearchMode
  readonly hits: readonly SearchHit[]
}

/**
 * A search result with whether it holds every admitted match of the scope: `complete` is false
 * when a channel's candidate pool was full (candidates past it could still pass admission) or
 * when the limit cut admitted hits. Retrieve-then-decide pages on it; public search drops it.
 */
export interface RankedSearchResult extends SearchResult {
  readonly complete: boolean
}
