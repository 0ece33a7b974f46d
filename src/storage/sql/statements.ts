import type { MergeRecord } from '../../core/memory-model.js'
import type { MemoryRow, SourceRow, VersionRow } from '../spi/dialect-tx.js'
import {
  CHANGE_COLUMNS,
  FAILURE_COLUMNS,
  HEAD_COLUMNS,
  MEMORY_COLUMNS,
  VERSION_COLUMNS,
} from './columns.js'

/**
 * Write statements of the logical tables (docs/storage.md) that are plain SQL on every adapter: the text
 * and its positional parameters, defined once. Adapters run them with their own driver; statements
 * that differ by dialect (upserts, counters, search) stay in the adapters.
 */
export interface RowStatement<T> {
  readonly sql: string
  readonly params: (row: T) => unknown[]
}

export const INSERT_MEMORY: RowStatement<MemoryRow> = {
  sql: `INSERT INTO memories (memory_id, scope_id, current_version, state, state_version,
    merged_into, kind, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  params: (r) => [
    r.memoryId,
    r.scopeId,
    r.currentVersion,
    r.state,
    r.stateVersion,
    r.mergedInto,
    r.kind,
    r.createdAt,
    r.updatedAt,
  ],
}

export const INSERT_VERSION: RowStatement<VersionRow> = {
  sql: `INSERT INTO memory_versions (memory_id, version, scope_id, previous_version, kind, text,
    sources_json, artifacts_json, observed_at, content_hash, created_at, operation, operation_id,
    reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  params: (v) => [
    v.memoryId,
    v.version,
    v.scopeId,
    v.previousVersion,
    v.kind,
    v.text,
    v.sourcesJson,
    v.artifactsJson,
    v.observedAt,
    v.contentHash,
    v.createdAt,
    v.operation,
    v.operationId,
    v.reason,
  ],
}

/** The head CAS (docs/storage.md): writes `next` only where version and state version are as expected. */
export const CAS_MEMORY: RowStatement<{
  next: MemoryRow
  expected: { version: number; stateVersion: number }
}> = {
  sql: `UPDATE memories SET current_version = ?, state = ?, state_version = ?, merged_into = ?,
    kind = ?, updated_at = ? WHERE memory_id = ? AND current_version = ? AND state_version = ?`,
  params: ({ next, expected }) => [
    next.currentVersion,
    next.state,
    next.stateVersion,
    next.mergedInto,
    next.kind,
    next.updatedAt,
    next.memoryId,
    expected.version,
    expected.stateVersion,
  ],
}

export const INSERT_SOURCE: RowStatement<SourceRow> = {
  sql: `INSERT INTO sources (scope_id, source_type, source_id, position, payload_hash, payload,
    created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  params: (s) => [
    s.scopeId,
    s.sourceType,
    s.sourceId,
    s.position,
    s.payloadHash,
    s.payload,
    s.createdAt,
  ],
}

export const INSERT_MERGE: RowStatement<MergeRecord> = {
  sql: `INSERT INTO merges (merge_id, scope_id, result_memory_id, state, created_at, operation_id,
    undone_at, undone_operation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  params: (m) => [
    m.mergeId,
    m.scopeId,
    m.resultId,
    m.state,
    m.createdAt,
    m.operationId,
    m.undoneAt,
    m.undoneOperationId,
  ],
}

/** Marks an effective merge undone (CAS on its state). */
export const UNDO_MERGE: RowStatement<{ mergeId: string; at: string; operationId: string }> = {
  sql: `UPDATE merges SET state = 'undone', undone_at = ?, undone_operation_id = ?
    WHERE merge_id = ? AND state = 'effective'`,
  params: (u) => [u.at, u.operationId, u.mergeId],
}

/** Whole-table reads for `verify` and `rebuild`, in a stable order. */
export const SELECT_ALL_MEMORIES = `SELECT ${MEMORY_COLUMNS} FROM memories ORDER BY memory_id`
export const SELECT_ALL_VERSIONS = `SELECT ${VERSION_COLUMNS} FROM memory_versions ORDER BY memory_id, version`
export const SELECT_ALL_HEADS = `SELECT ${HEAD_COLUMNS} FROM memory_heads ORDER BY memory_id`
export const SELECT_ALL_CHANGES = `SELECT ${CHANGE_COLUMNS} FROM memory_changes ORDER BY scope_id, seq`
export const SELECT_SCOPE_SEQS = 'SELECT scope_id AS scopeId, change_seq AS seq FROM scopes'

/**
 * A page of scopes (params: after, limit): counters, cursor, and the newest change-log row's time
 * (one index seek on the change log's primary key per scope). `cursor` is reserved in MySQL.
 */
export const SELECT_SCOPE_PAGE = `SELECT s.scope_id AS scopeId, s.change_seq AS headSeq,
    s.source_position AS highWatermark, COALESCE(c.position, 0) AS cursorPosition,
    (SELECT mc.at FROM memory_changes mc WHERE mc.scope_id = s.scope_id
      ORDER BY mc.seq DESC LIMIT 1) AS lastChangeAt
  FROM scopes s LEFT JOIN source_cursors c ON c.scope_id = s.scope_id
  WHERE s.scope_id > ? ORDER BY s.scope_id LIMIT ?`

/** Memory counts per state of a range of scopes (params: first, last scope id). */
export const SELECT_STATE_COUNTS = `SELECT scope_id AS scopeId, state, COUNT(*) AS n FROM memories
  WHERE scope_id >= ? AND scope_id <= ? GROUP BY scope_id, state`

/** Failure rows of a journal range (params: scope, after, through). */
export const SELECT_FAILURES_BETWEEN = `SELECT ${FAILURE_COLUMNS} FROM source_failures
  WHERE scope_id = ? AND position > ? AND position <= ? ORDER BY position`
