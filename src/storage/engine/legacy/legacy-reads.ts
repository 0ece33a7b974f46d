import type { LegacyCitation } from '../../../core/command-rules.js'
import { PowerContextError } from '../../../core/errors.js'
import type { DialectTx } from '../../spi/dialect-tx.js'

/**
 * The exact memory version an old entry citation became (docs/upgrade.md), from the map written by
 * the upgrade; `get` then reads it like any exact ref (hash-verified, under the current state). A
 * citation taken at a collection revision before the entry version existed cannot be genuine and
 * is reported like an unknown one.
 * @throws PowerContextError `memory_not_found`
 */
export async function legacyCitationTargetInTx(
  tx: DialectTx,
  scopeId: string,
  c: LegacyCitation,
): Promise<{ scopeId: string; memoryId: string; revision: number }> {
  const found = await tx.legacy.findCitation({ scopeId, ...c })
  if (found === undefined || c.memoryRevision < found.firstRevision) {
    throw new PowerContextError(
      'memory_not_found',
      `no upgraded entry version ${c.entryVersionId} of entry ${c.entryId} in scope`,
      { entry_id: c.entryId, entry_version_id: c.entryVersionId },
    )
  }
  return { scopeId, memoryId: found.memoryId, revision: found.version }
}
