import { checkLimit } from '../../../core/command-rules.js'
import { checkMemoryId, checkScopeId } from '../../../core/ids.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { HistoryCommand, HistoryResult } from '../../spi/memory-backend.js'
import { HISTORY_READ_BATCH, HISTORY_RESPONSE_BYTES_MAX } from '../../spi/memory-commands.js'
import type { ChangeRow, VersionRow } from '../../spi/rows.js'
import { requireMemory } from '../guards.js'
import { viewsOf } from '../redaction/redaction-reads.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { ROW_OVERHEAD_BYTES, versionBytes } from './answer-bytes.js'
import { toChange } from './changes.js'

/**
 * history, one page: the versions after `after` that fit the answer's byte budget (the first
 * always fits), the transitions at their revisions, and on the first page every merge.
 */
export async function historyInTx(
  tx: DialectTx,
  cmd: { scopeId: string; memoryId: string; after: number },
): Promise<HistoryResult> {
  const row = await requireMemory(tx, cmd.scopeId, cmd.memoryId)
  const changes = await tx.listChangesOfMemory(row.memoryId)
  const atRevision = groupByRevision(changes)
  const versions: VersionRow[] = []
  let bytes = 0
  let last = cmd.after
  let more = true
  fill: while (more) {
    const batch = await tx.listVersions(row.memoryId, last, HISTORY_READ_BATCH + 1)
    more = batch.length > HISTORY_READ_BATCH
    for (const v of batch.slice(0, HISTORY_READ_BATCH)) {
      const size = versionBytes(v) + sumBytes(atRevision.get(v.version) ?? [])
      if (versions.length > 0 && bytes + size > HISTORY_RESPONSE_BYTES_MAX) {
        more = true
        break fill
      }
      bytes += size
      versions.push(v)
      last = v.version
    }
  }
  const end = more ? last : Number.POSITIVE_INFINITY
  const inPage = (c: ChangeRow): boolean => {
    const revision = revisionOf(c)
    return revision > cmd.after && revision <= end
  }
  return {
    memoryId: row.memoryId,
    state: row.state,
    currentRevision: row.currentVersion,
    versions: await viewsOf(tx, versions, row),
    transitions: changes.filter(inPage).map(toChange),
    merges: cmd.after === 0 ? await tx.mergesOfMemory(row.memoryId) : [],
    nextAfter: more ? last : null,
  }
}

/**
 * One page of a memory's versions and transitions (see {@link historyInTx}).
 * @throws PowerContextError `invalid_request`, `memory_not_found`.
 */
export async function history(run: TxRunner, cmd: HistoryCommand): Promise<HistoryResult> {
  const checked = {
    scopeId: checkScopeId(cmd.scopeId),
    memoryId: checkMemoryId(cmd.memoryId),
    after: checkLimit(cmd.after, 'after', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  }
  return run.read((tx) => historyInTx(tx, checked))
}

/** The revision a change-log row belongs to: the one it made, else the one it left. */
function revisionOf(c: ChangeRow): number {
  return c.toRevision ?? c.fromRevision ?? 0
}

function groupByRevision(changes: readonly ChangeRow[]): Map<number, ChangeRow[]> {
  const out = new Map<number, ChangeRow[]>()
  for (const c of changes) {
    const r = revisionOf(c)
    const list = out.get(r)
    if (list === undefined) out.set(r, [c])
    else list.push(c)
  }
  return out
}

function sumBytes(changes: readonly ChangeRow[]): number {
  return changes.reduce((n, c) => n + ROW_OVERHEAD_BYTES + Buffer.byteLength(c.reason ?? ''), 0)
}
