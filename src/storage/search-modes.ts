import { admitsVector } from '../core/embedding.js'
import { PowerContextError } from '../core/errors.js'
import type { ChannelHit, SearchChannel } from '../core/search-rules.js'
import { candidatePoolSize, fuseRrf } from '../core/search-rules.js'
import type { DialectTx } from './dialect.js'
import type { SearchHit, SearchMode, SearchResult, UsedSearchMode } from './memory-backend.js'
import type { TxRunner, VectorSupport } from './vector-support.js'
import { versionRowProblems } from './version-codec.js'

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

/** The full-text channel: candidates re-checked against authoritative rows and admitted. */
export type FtsChannel = (tx: DialectTx, q: CheckedSearch) => Promise<ChannelResult>

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
 * The vector channel (DESIGN §5): nearest heads of the scope, each re-checked in this read
 * transaction against the authoritative rows (active, same version, hash-verified, and a vector
 * of exactly that content under the profile), then admitted by cosine (from unit L2) ≥ 0.3.
 */
export async function vectorChannelInTx(
  tx: DialectTx,
  support: VectorSupport,
  q: CheckedSearch,
  queryVector: readonly number[],
): Promise<ChannelResult> {
  const vectors = tx.vectors
  if (vectors === undefined) return { hits: [], texts: new Map() }
  const raw = await vectors.searchVectors({
    scopeId: q.scopeId,
    vector: queryVector,
    kinds: q.kinds,
    limit: candidatePoolSize(q.limit),
  })
  // Admission needs only the distance, so rejected candidates are never loaded.
  const near = raw.filter((h) => admitsVector(h.distance))
  const current = await tx.loadCurrent(near.map((h) => h.memoryId))
  const hits: ChannelHit[] = []
  const texts = new Map<string, { kind: string; text: string }>()
  for (const hit of near) {
    const c = current.get(hit.memoryId)
    if (c === undefined || c.row.scopeId !== q.scopeId || c.row.state !== 'active') continue
    if (c.row.currentVersion !== hit.version || c.version.version !== hit.version) continue
    if (hit.contentHash !== c.version.contentHash) continue
    if (hit.embeddingHash !== support.expectedHash(hit.contentHash)) continue
    if (q.kinds !== undefined && !q.kinds.includes(c.version.kind)) continue
    if (versionRowProblems(c.version).length > 0) continue
    hits.push({ memoryId: hit.memoryId, version: hit.version })
    texts.set(hit.memoryId, { kind: c.version.kind, text: c.version.text })
  }
  return { hits, texts }
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
  fts: FtsChannel,
  q: CheckedSearch,
  mode: SearchMode,
): Promise<SearchResult> {
  const ftsOnly = (tx: DialectTx): Promise<SearchResult> =>
    fts(tx, q).then((r) => fuseChannels('fts', { fts: r }, q.limit))
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
    const vector = await vectorChannelInTx(tx, support, q, queryVector)
    if (explicit === 'vector') return fuseChannels('vector', { vector }, q.limit)
    return fuseChannels('hybrid', { fts: await fts(tx, q), vector }, q.limit)
  })
}
