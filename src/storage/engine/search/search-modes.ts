import { admitsVector } from '../../../core/embedding.js'
import { PowerContextError } from '../../../core/errors.js'
import type { ChannelHit, SearchChannel } from '../../../core/search-rules.js'
import { candidatePoolSize, fuseRrf } from '../../../core/search-rules.js'
import type { CurrentMemory, DialectTx } from '../../spi/dialect-tx.js'
import type {
  SearchHit,
  SearchMode,
  SearchResult,
  UsedSearchMode,
} from '../../spi/memory-backend.js'
import type { VectorHit } from '../../spi/vector-tx.js'
import { ftsCandidates, ftsChannel, recheckFts } from '../ops/reads.js'
import type { TxRunner, VectorSupport } from '../vectors/vector-support.js'
import { versionRowProblems } from '../version-codec.js'

/** A validated search request. */
export interface CheckedSearch {
  readonly scopeId: string
  readonly query: string
  readonly limit: number
  readonly kinds: string[] | undefined
}

/** One channel's admitted hits in channel order, with the text and kind of each memory. */
export interface ChannelResult {
  readonly hits: readonly ChannelHit[]
  readonly texts: ReadonlyMap<string, { readonly kind: string; readonly text: string }>
}

function notSupported(
  mode: 'vector' | 'hybrid',
  capability: string,
  why: string,
): PowerContextError {
  return new PowerContextError('capability_not_supported', `search mode ${mode}: ${why}`, {
    capability,
  })
}

/**
 * The vector channel's candidates (DESIGN §5): nearest heads of the scope, admitted by cosine
 * (from unit L2) ≥ 0.3. Admission needs only the distance, so rejected candidates are never
 * loaded; the rest still need {@link recheckVector}.
 */
async function vectorCandidates(
  tx: DialectTx,
  q: CheckedSearch,
  queryVector: readonly number[],
): Promise<VectorHit[]> {
  if (tx.vectors === undefined) return []
  const raw = await tx.vectors.searchVectors({
    scopeId: q.scopeId,
    vector: queryVector,
    kinds: q.kinds,
    limit: candidatePoolSize(q.limit),
  })
  return raw.filter((h) => admitsVector(h.distance))
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
  if (c === undefined || c.row.scopeId !== q.scopeId || c.row.state !== 'active') return false
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
async function vectorAndTextChannels(
  tx: DialectTx,
  support: VectorSupport,
  q: CheckedSearch,
  queryVector: readonly number[],
  withText: boolean,
): Promise<{ vector: ChannelResult; fts?: ChannelResult }> {
  const near = await vectorCandidates(tx, q, queryVector)
  const text = withText ? await ftsCandidates(tx, q) : []
  const current = await tx.loadCurrent([
    ...new Set([...near.map((h) => h.memoryId), ...text.map((h) => h.memoryId)]),
  ])
  const channel = <H extends ChannelHit>(
    candidates: readonly H[],
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
    return { hits, texts }
  }
  const vector = channel(near, (hit, c) => recheckVector(hit, c, support, q))
  if (!withText) return { vector }
  return { vector, fts: channel(text, (hit, c) => recheckFts(hit, c, q.scopeId)) }
}

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

/**
 * DESIGN §5 mode selection. `fts` runs the full-text channel. `vector`/`hybrid` need a ready
 * profile (model + index + the database's profile) and a complete projection of the scope, and
 * never fall back: otherwise `capability_not_supported` (`details.capability`: the mode, or
 * `embedding-profile` when the model's profile differs); a failing query embedding is reported as
 * the model's error. `auto` is hybrid when all of that holds and fts otherwise (also when the query
 * embedding fails). The result reports the mode actually used; every hit of every channel is
 * re-checked against the authoritative rows in the same read transaction.
 */
export async function searchInMode(
  run: TxRunner,
  support: VectorSupport,
  q: CheckedSearch,
  mode: SearchMode,
): Promise<SearchResult> {
  const ftsOnly = (tx: DialectTx): Promise<SearchResult> =>
    ftsChannel(tx, q, q.limit).then((r) => fuseChannels('fts', { fts: r }, q.limit))
  if (mode === 'fts') return run.read(ftsOnly)
  const explicit = mode === 'auto' ? undefined : mode
  const status = support.status()
  if (status.state !== 'ready') {
    if (explicit === undefined) return run.read(ftsOnly)
    if (status.state === 'misconfigured') {
      throw notSupported(explicit, 'embedding-profile', status.reason ?? 'profile mismatch')
    }
    throw notSupported(
      explicit,
      explicit,
      status.reason ?? 'needs an embedding model and a vector index',
    )
  }
  const incomplete = (m: 'vector' | 'hybrid'): PowerContextError =>
    notSupported(m, m, 'the scope has memories without vectors; run reindex')
  // Known complete scopes skip straight to embedding the query; others are checked first so an
  // incomplete scope costs no model call. The search transaction re-checks either way.
  const hint = support.completenessHint(q.scopeId)
  if (hint !== true && !(await run.read((tx) => support.isComplete(tx, q.scopeId)))) {
    if (explicit === undefined) return run.read(ftsOnly)
    throw incomplete(explicit)
  }
  let queryVector: readonly number[]
  try {
    queryVector = await support.embedQuery(q.query, explicit === undefined)
  } catch (err) {
    if (explicit === undefined) return run.read(ftsOnly)
    // An incomplete scope is the answer whatever the model does (the hint may have been stale).
    if (hint === true && !(await run.read((tx) => support.isComplete(tx, q.scopeId)))) {
      throw incomplete(explicit)
    }
    throw err
  }
  return run.read(async (tx) => {
    if (!(await support.isComplete(tx, q.scopeId))) {
      if (explicit === undefined) return ftsOnly(tx)
      throw incomplete(explicit)
    }
    const channels = await vectorAndTextChannels(tx, support, q, queryVector, explicit !== 'vector')
    if (explicit === 'vector') return fuseChannels('vector', { vector: channels.vector }, q.limit)
    return fuseChannels('hybrid', channels, q.limit)
  })
}
