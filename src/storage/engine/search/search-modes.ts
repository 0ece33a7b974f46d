import { PowerContextError } from '../../../core/errors.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { SearchMode } from '../../spi/memory-backend.js'
import type { RankedSearchResult } from '../../spi/search-types.js'
import type { TxRunner, VectorSupport } from '../vectors/vector-support.js'
import type { CheckedSearch } from './channel.js'
import { ftsChannel } from './fts-channel.js'
import { fuseChannels } from './fuse.js'
import { vectorAndTextChannels } from './vector-channel.js'

function notSupported(
  mode: 'vector' | 'hybrid',
  capability: string,
  why: string,
  scopeId?: string,
): PowerContextError {
  return new PowerContextError('capability_not_supported', `search mode ${mode}: ${why}`, {
    capability,
    ...(scopeId === undefined ? {} : { scope_id: scopeId }),
  })
}

/** The search modes a backend can run (BackendCapabilities.searchModes, docs/search.md). */
export function searchModesOf(fts: boolean, vector: boolean): SearchMode[] {
  if (fts) return vector ? ['auto', 'fts', 'vector', 'hybrid'] : ['auto', 'fts']
  return vector ? ['auto', 'vector'] : []
}

function noFullText(mode: SearchMode, problem: string): PowerContextError {
  return new PowerContextError(
    'capability_not_supported',
    `search mode ${mode}: full-text search is unavailable on this backend: ${problem}`,
    { capability: 'fts' },
  )
}

/**
 * mode selection. `fts` runs the full-text channel. `vector`/`hybrid` need a ready
 * profile (model + index + the database's profile) and a complete projection of the scope, and
 * never fall back: otherwise `capability_not_supported` (`details.capability`: the mode, or
 * `embedding-profile` when the model's profile differs); a failing query embedding is reported as
 * the model's error. `auto` is hybrid when all of that holds and fts otherwise (also when the query
 * embedding fails). The result reports the mode actually used; every hit of every channel is
 * re-checked against the authoritative rows in the same read transaction. When the backend
 * cannot search full text (`fullTextProblem`), `fts` and `hybrid` are refused and `auto` is
 * `vector` (refused too without vectors).
 */
export async function searchInMode(
  run: TxRunner,
  support: VectorSupport,
  q: CheckedSearch,
  mode: SearchMode,
  fullTextProblem: string | null,
  finish?: (tx: DialectTx, result: RankedSearchResult) => Promise<RankedSearchResult>,
): Promise<RankedSearchResult> {
  // The result is finished (e.g. marked with freshness) in the transaction that produced it.
  const read = (work: (tx: DialectTx) => Promise<RankedSearchResult>) =>
    run.read(async (tx) => {
      const result = await work(tx)
      return finish === undefined ? result : finish(tx, result)
    })
  // Without full-text search (a failed probe), `auto` is `vector` when vectors are ready, and
  // every mode that needs the full-text channel is refused before anything runs.
  if (fullTextProblem !== null) {
    if (mode === 'auto' && support.ready)
      return searchInMode(run, support, q, 'vector', null, finish)
    if (mode !== 'vector') throw noFullText(mode, fullTextProblem)
  }
  const ftsOnly = (tx: DialectTx): Promise<RankedSearchResult> =>
    ftsChannel(tx, q, q.limit).then((r) => fuseChannels('fts', { fts: r }, q.limit))
  if (mode === 'fts') return read(ftsOnly)
  const explicit = mode === 'auto' ? undefined : mode
  const status = support.status()
  if (status.state !== 'ready') {
    if (explicit === undefined) return read(ftsOnly)
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
    notSupported(
      m,
      m,
      `scope ${q.scopeId} has memories without a vector of their current version, content and profile; run reindex`,
      q.scopeId,
    )
  // Known complete scopes skip straight to embedding the query; others are checked first so an
  // incomplete scope costs no model call. The search transaction re-checks either way.
  const hint = support.completenessHint(q.scopeId)
  if (hint !== true && !(await run.read((tx) => support.isComplete(tx, q.scopeId)))) {
    if (explicit === undefined) return read(ftsOnly)
    throw incomplete(explicit)
  }
  let queryVector: readonly number[]
  try {
    queryVector = await support.embedQuery(q.query, explicit === undefined)
  } catch (err) {
    if (explicit === undefined) return read(ftsOnly)
    // An incomplete scope is the answer whatever the model does (the hint may have been stale).
    if (hint === true && !(await run.read((tx) => support.isComplete(tx, q.scopeId)))) {
      throw incomplete(explicit)
    }
    throw err
  }
  return read(async (tx) => {
    if (!(await support.isComplete(tx, q.scopeId))) {
      if (explicit === undefined) return ftsOnly(tx)
      throw incomplete(explicit)
    }
    const channels = await vectorAndTextChannels(tx, support, q, queryVector, explicit !== 'vector')
    if (explicit === 'vector') return fuseChannels('vector', { vector: channels.vector }, q.limit)
    return fuseChannels('hybrid', channels, q.limit)
  })
}
