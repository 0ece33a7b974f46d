import { embeddingHasher } from '../../../core/embedding.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { VerifyReport } from '../../spi/memory-backend.js'
import { SCAN_PAGE } from './reindex.js'

/**
 * Vector part of `verify` (docs/storage.md): a vector row whose version, content hash or embedding hash
 * (under the database's stored profile) does not match its head is a problem (stale), as is any
 * index-level inconsistency; heads without a vector are only counted (allowed after an outage).
 */
export async function verifyVectorsInTx(
  tx: DialectTx,
): Promise<{ problems: string[]; vectors: number; missing: number } | undefined> {
  const vectors = tx.vectors
  if (vectors === undefined) return undefined
  const stored = (await vectors.getProfile())?.profile
  const hashOf = stored === undefined ? undefined : embeddingHasher(stored)
  const problems = await vectors.checkVectorIndex()
  let count = 0
  let missing = 0
  for (let after = ''; ;) {
    const page = await vectors.headVectorPage(after, SCAN_PAGE)
    const last = page.at(-1)
    if (last === undefined) break
    after = last.memoryId
    for (const h of page) {
      if (h.embeddingHash === null) {
        missing += 1
        continue
      }
      count += 1
      if (hashOf === undefined) {
        problems.push(`memory ${h.memoryId}: vector row without an embedding profile`)
      } else if (
        h.vectorVersion !== h.version ||
        h.vectorContentHash !== h.contentHash ||
        h.embeddingHash !== hashOf(h.contentHash)
      ) {
        problems.push(`memory ${h.memoryId}: stale vector (does not match version ${h.version})`)
      }
    }
  }
  return { problems, vectors: count, missing }
}

/** A `verify` report with the vector checks added (unchanged for a backend without vectors). */
export async function withVectorChecks(tx: DialectTx, report: VerifyReport): Promise<VerifyReport> {
  const vectors = await verifyVectorsInTx(tx)
  if (vectors === undefined) return report
  const problems = [...report.problems, ...vectors.problems]
  return {
    ok: problems.length === 0,
    problems,
    counts: { ...report.counts, vectors: vectors.vectors, missingVectors: vectors.missing },
  }
}
