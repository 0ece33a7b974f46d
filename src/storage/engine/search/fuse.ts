import type { SearchChannel } from '../../../core/search-rules.js'
import { fuseRrf } from '../../../core/search-rules.js'
import type { SearchHit, SearchResult, UsedSearchMode } from '../../spi/memory-backend.js'
import type { ChannelResult } from './channel.js'

/** RRF over the channels that ran (k = 60; ties by memory id, then version). */
export function fuseChannels(
  mode: UsedSearchMode,
  channels: Partial<Record<SearchChannel, ChannelResult>>,
  limit: number,
): SearchResult {
  const fused = fuseRrf(
    {
      ...(channels.fts === undefined ? {} : { fts: channels.fts.hits }),
      ...(channels.vector === undefined ? {} : { vector: channels.vector.hits }),
    },
    limit,
  )
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
  return { mode, hits }
}
