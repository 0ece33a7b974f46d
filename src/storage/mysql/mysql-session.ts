import type { PoolConnection, ResultSetHeader } from 'mysql2/promise'

import type { MemoryRow, VersionRow } from '../spi/dialect-tx.js'

/**
 * One pooled connection inside one transaction, with the three shapes of statement the verbs
 * need. Values are bound with mysql2's escaping (`?`; an array expands to a list for `IN (?)`);
 * no value is ever spliced into SQL text.
 */
export class SqlSession {
  readonly #conn: PoolConnection
  readonly #rewrite: ((sql: string) => string) | undefined

  /** `rewrite` is a test hook (see `MysqlBackendOptions.rewriteSql`). */
  constructor(conn: PoolConnection, rewrite?: (sql: string) => string) {
    this.#conn = conn
    this.#rewrite = rewrite
  }

  #text(sql: string): string {
    return this.#rewrite === undefined ? sql : this.#rewrite(sql)
  }

  /** Every row of a query. */
  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const [rows] = await this.#conn.query(this.#text(sql), params as unknown[])
    return rows as T[]
  }

  /** The first row of a query, if any. */
  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  /** A statement's affected (matched: the driver sets FOUND_ROWS) rows and insert id. */
  async run(sql: string, params: readonly unknown[] = []): Promise<ResultSetHeader> {
    const [result] = await this.#conn.query(this.#text(sql), params as unknown[])
    return result as ResultSetHeader
  }
}

/** Current memory + version in one row (prefixed to keep the two apart); param: id list. */
export const CURRENT_SQL = `
  SELECT m.memory_id AS m_memoryId, m.scope_id AS m_scopeId, m.current_version AS m_currentVersion,
    m.state AS m_state, m.state_version AS m_stateVersion, m.merged_into AS m_mergedInto,
    m.kind AS m_kind, m.created_at AS m_createdAt, m.updated_at AS m_updatedAt,
    v.memory_id AS memoryId, v.scope_id AS scopeId, v.version, v.previous_version AS previousVersion,
    v.kind, v.text, v.sources_json AS sourcesJson, v.artifacts_json AS artifactsJson,
    v.observed_at AS observedAt, v.content_hash AS contentHash, v.created_at AS createdAt,
    v.operation, v.operation_id AS operationId, v.reason
  FROM memories m
  JOIN memory_versions v ON v.memory_id = m.memory_id AND v.version = m.current_version
  WHERE m.memory_id IN (?)`

/** Splits a {@link CURRENT_SQL} row into its memory and version rows. */
export function splitCurrent(r: Record<string, unknown>): { row: MemoryRow; version: VersionRow } {
  const row: Record<string, unknown> = {}
  const version: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(r)) {
    if (key.startsWith('m_')) row[key.slice(2)] = value
    else version[key] = value
  }
  return { row: row as unknown as MemoryRow, version: version as unknown as VersionRow }
}
