import type { MemoryRow, VersionRow } from '../dialect.js'

/** Column lists aliased to the row interfaces' field names, so rows map without copying. */
export const MEMORY_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, current_version AS currentVersion,
  state, state_version AS stateVersion, merged_into AS mergedInto, kind, created_at AS createdAt,
  updated_at AS updatedAt`

export const VERSION_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, version,
  previous_version AS previousVersion, kind, text, sources_json AS sourcesJson,
  artifacts_json AS artifactsJson, observed_at AS observedAt, content_hash AS contentHash,
  created_at AS createdAt, operation, operation_id AS operationId, reason`

export const HEAD_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, version, kind,
  content_hash AS contentHash, searchable_text AS searchableText`

export const CHANGE_COLUMNS = `scope_id AS scopeId, seq, op, memory_id AS memoryId,
  from_revision AS fromRevision, to_revision AS toRevision, from_state AS fromState,
  to_state AS toState, reason, operation_id AS operationId, at`

export const SOURCE_COLUMNS = `scope_id AS scopeId, source_type AS sourceType, source_id AS sourceId,
  position, payload_hash AS payloadHash, payload, created_at AS createdAt`

/** Current memory + version in one row, prefixed to keep the two apart. */
export const CURRENT_SQL = `
  SELECT m.memory_id AS m_memoryId, m.scope_id AS m_scopeId, m.current_version AS m_currentVersion,
    m.state AS m_state, m.state_version AS m_stateVersion, m.merged_into AS m_mergedInto,
    m.kind AS m_kind, m.created_at AS m_createdAt, m.updated_at AS m_updatedAt,
    v.memory_id AS memoryId, v.scope_id AS scopeId, v.version, v.previous_version AS previousVersion,
    v.kind, v.text, v.sources_json AS sourcesJson, v.artifacts_json AS artifactsJson,
    v.observed_at AS observedAt, v.content_hash AS contentHash, v.created_at AS createdAt,
    v.operation, v.operation_id AS operationId, v.reason
  FROM json_each(?) j
  JOIN memories m ON m.memory_id = j.value
  JOIN memory_versions v ON v.memory_id = m.memory_id AND v.version = m.current_version`

/** A {@link CURRENT_SQL} row: the memory's columns prefixed `m_`, the version's unprefixed. */
type CurrentRow = VersionRow & {
  m_memoryId: string
  m_scopeId: string
  m_currentVersion: number
  m_state: MemoryRow['state']
  m_stateVersion: number
  m_mergedInto: string | null
  m_kind: string
  m_createdAt: string
  m_updatedAt: string
}

/** Splits a {@link CURRENT_SQL} row into its memory and version rows. */
export function splitCurrent(r: Record<string, unknown>): { row: MemoryRow; version: VersionRow } {
  const {
    m_memoryId,
    m_scopeId,
    m_currentVersion,
    m_state,
    m_stateVersion,
    m_mergedInto,
    m_kind,
    m_createdAt,
    m_updatedAt,
    ...version
  } = r as unknown as CurrentRow
  const row: MemoryRow = {
    memoryId: m_memoryId,
    scopeId: m_scopeId,
    currentVersion: m_currentVersion,
    state: m_state,
    stateVersion: m_stateVersion,
    mergedInto: m_mergedInto,
    kind: m_kind,
    createdAt: m_createdAt,
    updatedAt: m_updatedAt,
  }
  return { row, version }
}
