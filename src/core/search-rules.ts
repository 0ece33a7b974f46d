/** RRF constant, the Python reference's. */
export const RRF_K = 60
/** Queries with at most this many distinct terms need one shared term, as in the Python reference. */
export const FTS_SHORT_QUERY_MAX_TERMS = 2
/** Longer queries need at least this many shared distinct terms… */
export const FTS_MIN_MATCHED_TERMS = 2
/** …and at least this share of the distinct query terms. */
export const FTS_MIN_QUERY_COVERAGE = 0.25
/** Search result limits (docs/http-api.md). */
export const SEARCH_LIMIT_DEFAULT = 8
export const SEARCH_LIMIT_MAX = 50

/** Search channels, in the order `matched_by` lists them. */
export const SEARCH_CHANNELS = ['fts', 'vector'] as const
export type SearchChannel = (typeof SEARCH_CHANNELS)[number]

/** Each channel fetches `max(limit * 4, 32)` candidates. */
export function candidatePoolSize(limit: number): number {
  return Math.max(limit * 4, 32)
}

/** Shared distinct terms a candidate needs to be admitted by the FTS channel. */
export function requiredSharedTerms(distinctQueryTerms: number): number {
  if (distinctQueryTerms === 0) return Number.POSITIVE_INFINITY
  if (distinctQueryTerms <= FTS_SHORT_QUERY_MAX_TERMS) return 1
  return Math.max(FTS_MIN_MATCHED_TERMS, Math.ceil(distinctQueryTerms * FTS_MIN_QUERY_COVERAGE))
}

/**
 * FTS admission: the candidate's analysed tokens must share enough distinct terms with the query.
 * An empty query admits nothing.
 */
export function admitsFts(
  queryTerms: ReadonlySet<string>,
  candidateTokens: Iterable<string>,
): boolean {
  const need = requiredSharedTerms(queryTerms.size)
  if (!Number.isFinite(need)) return false
  const seen = new Set<string>()
  for (const token of candidateTokens) {
    if (queryTerms.has(token) && !seen.has(token)) {
      seen.add(token)
      if (seen.size >= need) return true
    }
  }
  return false
}

/** One admitted candidate of a channel, in the channel's backend order. */
export interface ChannelHit {
  readonly memoryId: string
  readonly version: number
}

/** A fused result: identity, RRF score and the channels that admitted it. */
export interface FusedHit extends ChannelHit {
  readonly score: number
  readonly matchedBy: readonly SearchChannel[]
}

function compareAscii(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Reciprocal-rank fusion with k = 60 over admitted lists. Ranks are 1-based positions in each
 * list; a duplicate inside one list keeps its first rank but still uses a position. Ties are broken
 * by memory id, then version. Single-channel searches use the same formula.
 */
export function fuseRrf(
  channels: Readonly<Partial<Record<SearchChannel, readonly ChannelHit[]>>>,
  limit: number,
): FusedHit[] {
  const byKey = new Map<string, { hit: ChannelHit; score: number; by: Set<SearchChannel> }>()
  for (const channel of SEARCH_CHANNELS) {
    const hits = channels[channel]
    if (hits === undefined) continue
    const seen = new Set<string>()
    hits.forEach((hit, index) => {
      const key = `${hit.memoryId}\u0000${hit.version}`
      if (seen.has(key)) return
      seen.add(key)
      const entry = byKey.get(key) ?? { hit, score: 0, by: new Set<SearchChannel>() }
      entry.score += 1 / (RRF_K + index + 1)
      entry.by.add(channel)
      byKey.set(key, entry)
    })
  }
  const fused = [...byKey.values()].map(({ hit, score, by }) => ({
    memoryId: hit.memoryId,
    version: hit.version,
    score,
    matchedBy: SEARCH_CHANNELS.filter((c) => by.has(c)),
  }))
  fused.sort(
    (a, b) => b.score - a.score || compareAscii(a.memoryId, b.memoryId) || a.version - b.version,
  )
  return fused.slice(0, limit)
}
