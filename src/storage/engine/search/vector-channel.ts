import { admitsVector } from '../../../core/embedding.js'
import { isActive } from '../../../core/memory-state.js'
import type { ChannelHit } from '../../../core/search-rules.js'
import { candidatePoolSize } from '../../../core/search-rules.js'
import type { CurrentMemory, DialectTx } from '../../spi/dialect-tx.js'
import type { VectorHit } from '../../spi/vector-tx.js'
import type { VectorSupport } from '../vectors/vector-support.js'
import { versionRowProblems } from '../version-codec.js'
import type { ChannelResult, CheckedSearch } from './channel.js'
import { ftsCandidates } from './fts-channel.js'
import { recheckFts } from './fts-channel.js'

/**
 * The vector channel's candidates (docs/search.md): nearest heads of the scope, admitted by cosine
 * (from unit L2) ≥ 0.3. Admission needs only the distance, so rejected candidates are never
 * loaded; the rest still need {@link recheckVector}.
 */
async function vectorCandidates(
  tx: DialectTx,
  q: CheckedSearch,
  queryVector: readonly number[],
): Promise<{ hits: VectorHit[]; complete: boolean }> {
  if (tx.vectors === undefined) return { hits: [], complete: true }
  const pool = candidatePoolSize(q.limit)
  const raw = await tx.vectors.searchVectors({
    scopeId: q.scopeId,
    vector: queryVector,
    kinds: q.kinds,
    limit: pool,
  })
  // Nearest first: once one candidate fails the cosine admission, none past the pool passes.
  const hits = raw.filter((h) => admitsVector(h.distance))
  return { hits, complete: raw.length < pool || hits.length < raw.length }
}

/**
 * The re-check of a vector candidate against the authoritative rows read in the same
 * transaction: active in the scope, same version, hash-verified, of a wanted kind, and a vector of
 * exactly that content under the profile.
 */
function recheckVector(
  hit: VectorHit,
  c: CurrentMemory | undefined,
  support: VectorSupport,
  q: CheckedSearch,
): c is CurrentMemory {
  if (c === undefined || c.row.scopeId !== q.scopeId || !isActive(c.row.state)) return false
  if (c.row.currentVersion !== hit.version || c.version.version !== hit.version) return false
  if (hit.contentHash !== c.version.contentHash) return false
  if (hit.embeddingHash !== support.expectedHash(hit.contentHash)) return false
  if (q.kinds !== undefined && !q.kinds.includes(c.version.kind)) return false
  return versionRowProblems(c.version).length === 0
}

/**
 * The vector channel and, for hybrid, the full-text channel, with one load of the authoritative
 * rows for the candidates of both (every admitted candidate of each channel takes part in RRF).
 */
export async function vectorAndTextChannels(
  tx: DialectTx,
  support: VectorSupport,
  q: CheckedSearch,
  queryVector: readonly number[],
  withText: boolean,
): Promise<{ vector: ChannelResult; fts?: ChannelResult }> {
  const { hits: near, complete: nearComplete } = await vectorCandidates(tx, q, queryVector)
  const { hits: text, complete: textComplete } = withText
    ? await ftsCandidates(tx, q)
    : { hits: [], complete: true }
  const current = await tx.loadCurrent([
    ...new Set([...near.map((h) => h.memoryId), ...text.map((h) => h.memoryId)]),
  ])
  const channel = <H extends ChannelHit>(
    candidates: readonly H[],
    complete: boolean,
    recheck: (hit: H, c: CurrentMemory | undefined) => c is CurrentMemory,
  ): ChannelResult => {
    const hits: ChannelHit[] = []
    const texts = new Map<string, { kind: string; text: string }>()
    for (const hit of candidates) {
      const c = current.get(hit.memoryId)
      if (!recheck(hit, c)) continue
      hits.push({ memoryId: hit.memoryId, version: hit.version })
      texts.set(hit.memoryId, { kind: c.version.kind, text: c.version.text })
    }
    return { hits, texts, complete }
  }
  const vector = channel(near, nearComplete, (hit, c) => recheckVector(hit, c, support, q))
  if (!withText) return { vector }
  return { vector, fts: channel(text, textComplete, (hit, c) => recheckFts(hit, c, q.scopeId)) }
}
