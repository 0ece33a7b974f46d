import type { DialectTx } from '../../spi/dialect-tx.js'
import type { HistoryResult } from '../../spi/memory-backend.js'
import { requireMemory } from '../guards.js'
import { viewsOf } from '../redaction/redaction-reads.js'
import { toChange } from './changes.js'

/** history: every version and every state transition of one memory. */
export async function historyInTx(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string },
): Promise<HistoryResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const versions = await tx.listVersions(row.memoryId)
  const transitions = await tx.listChangesOfMemory(row.memoryId)
  const merges = await tx.mergesOfMemory(row.memoryId)
  return {
    memoryId: row.memoryId,
    state: row.state,
    currentRevision: row.currentVersion,
    versions: await viewsOf(tx, versions, row),
    transitions: transitions.map(toChange),
    merges,
  }
}
