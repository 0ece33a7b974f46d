import type { DialectTx } from '../../spi/dialect-tx.js'
import { requireMemory, requireVersion } from '../guards.js'
import { planRestore } from '../ops/restore-plan.js'

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
