import type { DialectTx, VersionRow } from '../spi/dialect-tx.js'
import { headOf } from './row-builders.js'
import { isRedactedVersionRow } from './version-codec.js'
import type { WriteContext } from './write-context.js'

/**
 * Projects an active memory's version: the head row with its full-text row and, in the same
 * transaction, its vector row. The vector is written only when one was prepared for exactly this
 * text; it carries the version, content hash and the embedding hash of that content under the
 * profile. Otherwise any older vector row is removed, so a head never keeps a stale vector.
 */
export async function projectHead(
  tx: DialectTx,
  ctx: WriteContext,
  version: VersionRow,
): Promise<void> {
  // An erased version is never projected (docs/storage.md "Redaction"): its text is gone.
  if (isRedactedVersionRow(version)) return tx.deleteHead(version.memoryId)
  await tx.putHead(headOf(version))
  const vectors = tx.vectors
  if (vectors === undefined) return
  const prepared = ctx.vectors
  const vector = prepared?.byText.get(version.text)
  if (prepared === undefined || vector === undefined || vectors.indexProblem !== null) {
    await vectors.deleteVector(version.memoryId)
    return
  }
  await vectors.putVector({
    memoryId: version.memoryId,
    scopeId: version.scopeId,
    version: version.version,
    kind: version.kind,
    contentHash: version.contentHash,
    embeddingHash: prepared.hashOf(version.contentHash),
    vector,
  })
}
