import { checkMemoryId, checkScopeId } from '../../../core/ids.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { HistoryCommand, HistoryResult } from '../../spi/memory-backend.js'
import { requireMemory } from '../guards.js'
import { viewsOf } from '../redaction/redaction-reads.js'
import type { TxRunner } from '../vectors/vector-support.js'
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

/** All versions and transitions of one memory. @throws PowerContextError `invalid_request`, `memory_not_found`. */
export async function history(run: TxRunner, cmd: HistoryCommand): Promise<HistoryResult> {
  const checked = { scopeId: checkScopeId(cmd.scopeId), memoryId: checkMemoryId(cmd.memoryId) }
  return run.read((tx) => historyInTx(tx, checked))
}
