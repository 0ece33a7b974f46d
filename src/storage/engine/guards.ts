import { PowerContextError } from '../../core/errors.js'
import type { SourceRef } from '../../core/memory-model.js'
import { isActive } from '../../core/memory-state.js'
import type { DialectTx, MemoryRow, VersionRow } from '../spi/dialect-tx.js'

/**
 * Loads a memory of the scope. A memory of another scope is reported exactly like a missing one,
 * so scope ids cannot be probed.
 * @throws PowerContextError `memory_not_found`
 */
export async function requireMemory(
  tx: DialectTx,
  scopeId: string,
  memoryId: string,
): Promise<MemoryRow> {
  const row = await tx.getMemory(memoryId)
  if (row === undefined || row.scopeId !== scopeId) {
    throw new PowerContextError('memory_not_found', `memory ${memoryId} not found in scope`, {
      memory_id: memoryId,
    })
  }
  return row
}

/** Loads a stored version, which must exist for a consistent memory row. */
export async function requireVersion(
  tx: DialectTx,
  memoryId: string,
  version: number,
): Promise<VersionRow> {
  const row = await tx.getVersion(memoryId, version)
  if (row === undefined) {
    throw new PowerContextError(
      'memory_not_found',
      `memory ${memoryId} has no version ${version}`,
      {
        memory_id: memoryId,
        revision: version,
      },
    )
  }
  return row
}

/** @throws PowerContextError `source_not_found` when any evidence source is not in the scope. */
export async function requireSources(
  tx: DialectTx,
  scopeId: string,
  refs: readonly SourceRef[],
): Promise<void> {
  if (refs.length === 0) return
  const missing = await tx.missingSources(scopeId, [...new Set(refs.map((r) => r.sourceId))])
  if (missing.length > 0) {
    throw new PowerContextError(
      'source_not_found',
      `source not found in scope: ${missing.join(', ')}`,
      {
        source_ids: missing,
      },
    )
  }
}

/** @throws PowerContextError `revision_conflict` when the stored row moved under us. */
export async function casOrConflict(
  tx: DialectTx,
  next: MemoryRow,
  before: MemoryRow,
): Promise<void> {
  const ok = await tx.casMemory(next, {
    version: before.currentVersion,
    stateVersion: before.stateVersion,
  })
  if (!ok) {
    throw new PowerContextError(
      'revision_conflict',
      `memory ${before.memoryId} changed concurrently`,
      {
        memory_id: before.memoryId,
      },
    )
  }
}

/** Rejects a change to a memory that is not active at exactly the caller's version. */
export function requireActiveAt(row: MemoryRow, revision: number | undefined): void {
  if (!isActive(row.state)) {
    throw new PowerContextError(
      'state_conflict',
      `memory ${row.memoryId} is ${row.state}, not active`,
      {
        memory_id: row.memoryId,
        state: row.state,
      },
    )
  }
  requireRevisionAt(row, revision)
}

/** Rejects a caller's revision that is not the memory's current one (`undefined`: any). */
export function requireRevisionAt(row: MemoryRow, revision: number | undefined): void {
  if (revision !== undefined && revision !== row.currentVersion) {
    throw new PowerContextError(
      'revision_conflict',
      `memory ${row.memoryId} is at revision ${row.currentVersion}, not ${revision}`,
      {
        memory_id: row.memoryId,
        current_revision: row.currentVersion,
      },
    )
  }
}
