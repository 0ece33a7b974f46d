import type { DialectTx } from '../../spi/dialect-tx.js'
import type { GetResult } from '../../spi/memory-backend.js'
import { requireMemory, requireVersion } from '../guards.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'

/** get: an exact version (or the current one), hash-verified, under the current state. */
export async function getInTx(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; revision: number | undefined },
): Promise<GetResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const version = await requireVersion(tx, row.memoryId, cmd.revision ?? row.currentVersion)
  return {
    memory: await viewOfVersion(tx, version, row),
    currentRevision: row.currentVersion,
    state: row.state,
  }
}
