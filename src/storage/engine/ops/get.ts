import { checkLegacyCitation } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { checkMemoryId, checkRevision, checkScopeId } from '../../../core/ids.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { GetCommand, GetResult } from '../../spi/memory-backend.js'
import { optional } from '../command-checks.js'
import { requireMemory, requireVersion } from '../guards.js'
import { legacyCitationTargetInTx } from '../legacy/legacy-reads.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { freshnessOfRefs } from './freshness.js'

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

/**
 * Checks get: a memory id and an optional revision, or (never both) an old entry citation of the
 * Python reference. @throws PowerContextError `invalid_request`.
 */
export function checkGet(cmd: GetCommand) {
  const scopeId = checkScopeId(cmd.scopeId)
  if (cmd.legacyCitation !== undefined) {
    if (cmd.memoryId !== undefined || cmd.revision !== undefined) {
      throw invalidRequest('legacy_citation', 'give either memory_id/revision or legacy_citation')
    }
    return { scopeId, citation: checkLegacyCitation(cmd.legacyCitation) }
  }
  return {
    scopeId,
    memoryId: checkMemoryId(cmd.memoryId),
    revision: optional(cmd.revision, (r) => checkRevision(r)),
  }
}

/**
 * Reads one version (default: current), verified against its hash; or, by an old entry citation
 * of the Python reference, the exact version that entry version became (docs/upgrade.md).
 * @throws PowerContextError `invalid_request`, `memory_not_found`.
 */
export async function get(run: TxRunner, cmd: GetCommand): Promise<GetResult> {
  const q = checkGet(cmd)
  return run.read(async (tx) => {
    const target = 'citation' in q ? await legacyCitationTargetInTx(tx, q.scopeId, q.citation) : q
    const got = await getInTx(tx, target)
    // A possibly stale memory says so (docs/agents.md "Freshness").
    const marks = await freshnessOfRefs(tx, q.scopeId, [got.memory.memoryRef])
    const stale = marks.get(got.memory.memoryRef.artifactId)
    return stale === undefined ? got : { ...got, stale }
  })
}
