import type { MemoryRow, VersionRow } from '../spi/rows.js'
import type { SqlDialect } from './dialect.js'

/** Current memory + version in one row, prefixed to keep the two apart; param: the id list. */
const currentSelect = (inList: string): string => `
  SELECT m.memory_id AS m_memoryId, m.scope_id AS m_scopeId, m.current_version AS m_currentVersion,
    m.state AS m_state, m.state_version AS m_stateVersion, m.merged_into AS m_mergedInto,
    m.kind AS m_kind, m.created_at AS m_createdAt, m.updated_at AS m_updatedAt,
    v.memory_id AS memoryId, v.scope_id AS scopeId, v.version, v.previous_version AS previousVersion,
    v.kind, v.text, v.sources_json AS sourcesJson, v.artifacts_json AS artifactsJson,
    v.observed_at AS observedAt, v.content_hash AS contentHash, v.created_at AS createdAt,
    v.operation, v.operation_id AS operationId, v.reason
  FROM memories m
  JOIN memory_versions v ON v.memory_id = m.memory_id AND v.version = m.current_version
  WHERE m.memory_id IN ${inList}`

const CURRENT_SQL = new WeakMap<SqlDialect, string>()

/** The current-row query of a dialect (built once per dialect object, so its text is stable). */
export function currentSql(dialect: SqlDialect): string {
  let sql = CURRENT_SQL.get(dialect)
  if (sql === undefined) {
    sql = currentSelect(dialect.inList.sql)
    CURRENT_SQL.set(dialect, sql)
  }
  return sql
}

/** A {@link currentSql} row: the memory's columns prefixed `m_`, the version's unprefixed. */
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

/**
 * Splits a {@link currentSql} row into its memory and version rows. Each field is copied by name
 * (object rest destructuring took ≈ 1–2 µs a row, and every search reads its hits through here).
 */
export function splitCurrent(r: Record<string, unknown>): { row: MemoryRow; version: VersionRow } {
  const c = r as unknown as CurrentRow
  const row: MemoryRow = {
    memoryId: c.m_memoryId,
    scopeId: c.m_scopeId,
    currentVersion: c.m_currentVersion,
    state: c.m_state,
    stateVersion: c.m_stateVersion,
    mergedInto: c.m_mergedInto,
    kind: c.m_kind,
    createdAt: c.m_createdAt,
    updatedAt: c.m_updatedAt,
  }
  const version: VersionRow = {
    memoryId: c.memoryId,
    scopeId: c.scopeId,
    version: c.version,
    previousVersion: c.previousVersion,
    kind: c.kind,
    text: c.text,
    sourcesJson: c.sourcesJson,
    artifactsJson: c.artifactsJson,
    observedAt: c.observedAt,
    contentHash: c.contentHash,
    createdAt: c.createdAt,
    operation: c.operation,
    operationId: c.operationId,
    reason: c.reason,
  }
  return { row, version }
}
