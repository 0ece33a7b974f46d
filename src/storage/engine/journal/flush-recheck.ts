/**
 * The re-check decisions of a flush (docs/agents.md "Freshness"): a possibly stale memory checked
 * against the commits that touched its paths is kept (the check is recorded, so those commits no
 * longer mark it) or forgotten, in the flush's own transaction. An update is an ordinary `update`
 * decision.
 */
import type { ArtifactRef } from '../../../core/memory-model.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { AppliedDecision } from '../../spi/flush-types.js'
import { requireActiveAt, requireMemory, requireVersion } from '../guards.js'
import { forgetInTx } from '../ops/forget.js'
import { viewOfVersion } from '../redaction/redaction-reads.js'
import type { WriteContext } from '../write-context.js'

/** Applies one `keep` or `forget` re-check of the exact version `d.target`. */
export async function recheckInTx(
  tx: DialectTx,
  ctx: WriteContext,
  scopeId: string,
  d: {
    readonly op: 'keep' | 'forget'
    readonly target: ArtifactRef
    readonly reason: string | null
  },
): Promise<AppliedDecision> {
  const memoryId = d.target.artifactId
  if (d.op === 'forget') {
    const r = await forgetInTx(tx, ctx, {
      scopeId,
      memoryId,
      expectedRevision: d.target.revision,
      reason: d.reason,
    })
    return {
      op: d.op,
      status: r.status === 'unchanged' ? 'unchanged' : 'forgotten',
      memory: r.memory,
    }
  }
  const row = await requireMemory(tx, scopeId, memoryId)
  requireActiveAt(row, d.target.revision)
  const version = await requireVersion(tx, memoryId, row.currentVersion)
  await tx.freshness.putCheck({ memoryId, scopeId, version: row.currentVersion, checkedAt: ctx.at })
  return { op: d.op, status: 'kept', memory: await viewOfVersion(tx, version, row) }
}
