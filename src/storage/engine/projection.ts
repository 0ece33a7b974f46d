import type { DialectTx, VersionRow } from '../spi/dialect-tx.js'
import type { WriteContext } from './guards.js'
import { requireMemory, requireVersion } from './guards.js'
import { planRestore } from './ops/restore-plan.js'
import { headOf } from './row-builders.js'

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

/** The text an update will project: the new text, or the current one for a kind/evidence change. */
export async function updateTexts(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; text: string | undefined },
): Promise<string[]> {
  if (cmd.text !== undefined) return [cmd.text]
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  return [(await requireVersion(tx, row.memoryId, row.currentVersion)).text]
}

/** The texts a restore will project: every memory coming back, and the `to_revision` content. */
export async function restoreTexts(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; toRevision: number | undefined },
): Promise<string[]> {
  const plan = await planRestore(tx, cmd)
  const texts: string[] = []
  for (const ref of plan.restore)
    texts.push((await requireVersion(tx, ref.memoryId, ref.version)).text)
  if (plan.newVersion !== null) {
    texts.push(
      (await requireVersion(tx, plan.newVersion.memoryId, plan.newVersion.fromRevision)).text,
    )
  }
  return texts
}
