import { PowerContextError } from '../../../core/errors.js'
import { isActive } from '../../../core/memory-state.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { ReindexReport } from '../../spi/memory-backend.js'
import type { HeadVectorState } from '../../spi/vector-tx.js'
import { versionRowProblems } from '../version-codec.js'
import type { TxRunner, VectorSupport } from './vector-support.js'

/** Heads read per page while scanning for missing vectors. */
export const SCAN_PAGE = 500
/** Default texts per embedding call (and per write transaction). */
export const REINDEX_BATCH_DEFAULT = 64

/**
 * Fills every missing or stale vector of active memories (docs/storage.md): heads are scanned in keyset
 * pages, the texts of those without a valid vector are embedded in bounded batches outside any
 * transaction, and each batch is written in its own write transaction after re-checking that the
 * memory is still active at the same version and content. A model failure stops the run and is
 * reported (the remaining heads stay without vectors, never with stale ones). `onProgress` hears
 * the running totals after every page.
 * @throws PowerContextError `capability_not_supported` without a ready embedding profile.
 */
export async function reindexVectors(
  run: TxRunner,
  support: VectorSupport,
  batchSize = REINDEX_BATCH_DEFAULT,
  onProgress?: (progress: ReindexReport) => void,
): Promise<ReindexReport> {
  const status = support.status()
  if (!support.ready) {
    throw new PowerContextError(
      'capability_not_supported',
      `reindex needs a ready embedding profile: ${status.reason ?? 'no embedding model configured'}`,
      { capability: status.state === 'misconfigured' ? 'embedding-profile' : 'vector' },
    )
  }
  const size = Math.max(1, Math.min(Math.trunc(batchSize), 1024))
  let after = ''
  let scanned = 0
  let embedded = 0
  let remaining = 0
  let error: ReindexReport['error'] = null
  for (;;) {
    const page = await run.read(async (tx) => vectorsOf(tx).headVectorPage(after, SCAN_PAGE))
    const last = page.at(-1)
    if (last === undefined) break
    after = last.memoryId
    scanned += page.length
    const todo = page.filter((h) => !support.isValid(h))
    for (let i = 0; i < todo.length; i += size) {
      const batch = todo.slice(i, i + size)
      if (error !== null) {
        remaining += batch.length
        continue
      }
      let written = 0
      try {
        written = await reindexBatch(run, support, batch)
      } catch (err) {
        if (!(err instanceof PowerContextError) || !err.code.includes('inference')) throw err
        error = { code: err.code, message: err.message }
      }
      embedded += written
      remaining += batch.length - written
    }
    onProgress?.({ scanned, embedded, remaining, error })
  }
  if (embedded > 0) await run.write((tx) => vectorsOf(tx).bumpEpoch())
  if (error === null && remaining === 0) support.markBacklog(false)
  return { scanned, embedded, remaining, error }
}

function vectorsOf(tx: DialectTx) {
  const vectors = tx.vectors
  if (vectors === undefined) throw new Error('this backend has no vector projection')
  return vectors
}

async function reindexBatch(
  run: TxRunner,
  support: VectorSupport,
  batch: readonly HeadVectorState[],
): Promise<number> {
  const ids = batch.map((h) => h.memoryId)
  const wanted = new Map(batch.map((h) => [h.memoryId, h]))
  const current = await run.read((tx) => tx.loadCurrent(ids))
  const items = [...current.values()].filter((c) => {
    const h = wanted.get(c.row.memoryId)
    return (
      h !== undefined &&
      isActive(c.row.state) &&
      c.version.version === h.version &&
      c.version.contentHash === h.contentHash
    )
  })
  if (items.length === 0) return 0
  const vectors = await support.embedTexts(items.map((c) => c.version.text))
  return run.write(async (tx) => {
    const now = await tx.loadCurrent(items.map((c) => c.row.memoryId))
    const heads = new Map(
      (await vectorsOf(tx).headVectors({ memoryIds: items.map((c) => c.row.memoryId) })).map(
        (h) => [h.memoryId, h],
      ),
    )
    let written = 0
    for (const [i, item] of items.entries()) {
      const c = now.get(item.row.memoryId)
      const head = heads.get(item.row.memoryId)
      // Re-checked inside the write: still active, same version, same content, head in step.
      if (c === undefined || head === undefined || !isActive(c.row.state)) continue
      if (c.version.version !== item.version.version || c.version.text !== item.version.text)
        continue
      if (head.version !== c.version.version || head.contentHash !== c.version.contentHash) continue
      if (versionRowProblems(c.version).length > 0) continue
      await vectorsOf(tx).putVector({
        memoryId: c.row.memoryId,
        scopeId: c.row.scopeId,
        version: c.version.version,
        kind: c.version.kind,
        contentHash: c.version.contentHash,
        embeddingHash: support.expectedHash(c.version.contentHash),
        vector: vectors[i] as readonly number[],
      })
      written += 1
    }
    return written
  })
}
