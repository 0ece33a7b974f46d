import type { SearchChannel } from '../../../core/search-rules.js'
import { fuseRrf } from '../../../core/search-rules.js'
import type { SearchHit, UsedSearchMode } from '../../spi/memory-backend.js'
import type { RankedSearchResult } from '../../spi/search-types.js'
import type { ChannelResult } from './channel.js'

/**
 * RRF over the channels that ran (k = 60; ties by memory id, then version). Complete when every
 * channel is and the limit cut no fused hit.
 */
export function fuseChannels(
  mode: UsedSearchMode,
  channels: Partial<Record<SearchChannel, ChannelResult>>,
  limit: number,
): RankedSearchResult {
  const all = fuseRrf(
    {
      ...(channels.fts === undefined ? {} : { fts: channels.fts.hits }),
      ...(channels.vector === undefined ? {} : { vector: channels.vector.hits }),
    },
    limit + 1,
  )
  const fused = all.slice(0, limit)
  const complete =
    all.length <= limit && Object.values(channels).every((c) => c === undefined || c.complete)
  const hits: SearchHit[] = fused.map((f) => {
    const t = channels.fts?.texts.get(f.memoryId) ??
      channels.vector?.texts.get(f.memoryId) ?? { kind: '', text: '' }
    return Object.freeze({
      memoryRef: Object.freeze({ artifactId: f.memoryId, revision: f.version }),
      kind: t.kind,
      text: t.text,
      score: f.score,
      matchedBy: f.matchedBy,
    })
  })
  return { mode, hits, complete }
}
