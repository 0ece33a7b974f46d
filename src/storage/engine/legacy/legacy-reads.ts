import type { LegacyCitation } from '../../../core/command-rules.js'
import { PowerContextError } from '../../../core/errors.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { GetResult } from '../../spi/memory-backend.js'
import { getInTx } from '../ops/get.js'

/**
 * `get` by an old entry citation (docs/upgrade.md): the map written by the upgrade turns it into
 * the exact memory version, read like any exact ref (hash-verified, under the current state). A
 * citation taken at a collection revision before the entry version existed cannot be genuine and
 * is reported like an unknown one.
 * @throws PowerContextError `memory_not_found`
 */
export async function getByLegacyCitationInTx(
  tx: DialectTx,
  scopeId: string,
  c: LegacyCitation,
): Promise<GetResult> {
  const found = await tx.legacy.findCitation({ scopeId, ...c })
  if (found === undefined || c.memoryRevision < found.firstRevision) {
    throw new PowerContextError(
      'memory_not_found',
      `no upgraded entry version ${c.entryVersionId} of entry ${c.entryId} in scope`,
      { entry_id: c.entryId, entry_version_id: c.entryVersionId },
    )
  }
  return getInTx(tx, { scopeId, memoryId: found.memoryId, revision: found.version })
}
