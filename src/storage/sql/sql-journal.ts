import type { SourceRow } from '../spi/dialect-tx.js'
import type { CursorRow, FailureRow, FlushRecordRow, JournalTx } from '../spi/journal-tx.js'
import type { SourceBytesRow } from '../spi/source-row.js'
import {
  CURSOR_COLUMNS,
  FAILURE_COLUMNS,
  RECORD_COLUMNS,
  SOURCE_COLUMNS,
  sourceBytesColumns,
} from './columns.js'
import type { SqlDialect } from './dialect.js'
import type { SqlSession } from './session.js'
import { SELECT_FAILURES_BETWEEN } from './statements.js'

/** The upsert of a failure row: every field but the first failure time follows the new attempt. */
const FAILURE_UPSERT = (d: SqlDialect): string =>
  d.upsert(
    ['scope_id', 'position'],
    ['attempts', 'error_code', 'error_message', 'state', 'skip_seq', 'last_failed_at'],
  )

/**
 * Journal verbs over one session inside the caller's transaction (SQL only, no decision), written once
 * for every dialect:
 * `source_cursors` (CAS on generation, so two replicas flushing one scope never both advance it
 * from the same place), `source_failures` and `flush_records`.
 */
export class SqlJournal implements JournalTx {
  readonly #sql: SqlSession
  readonly #dialect: SqlDialect

  constructor(sql: SqlSession, dialect: SqlDialect) {
    this.#sql = sql
    this.#dialect = dialect
  }

  async getCursor(scopeId: string): Promise<CursorRow | undefined> {
    return this.#sql.get(`SELECT ${CURSOR_COLUMNS} FROM source_cursors WHERE scope_id = ?`, [
      scopeId,
    ])
  }

  /**
   * The cursor CAS: with no row yet, an insert that loses to a concurrent one (duplicate key; the
   * failed statement alone is rolled back) is a lost race: false, nothing written. Otherwise
   * `UPDATE … WHERE generation = ?`.
   */
  async casCursor(
    next: { scopeId: string; position: number; isolateThrough: number; updatedAt: string },
    expectedGeneration: number,
  ): Promise<boolean> {
    if (expectedGeneration === 0) {
      try {
        await this.#sql.run(
          `INSERT INTO source_cursors (scope_id, position, generation, isolate_through, updated_at)
           VALUES (?, ?, 1, ?, ?)`,
          [next.scopeId, next.position, next.isolateThrough, next.updatedAt],
        )
        return true
      } catch (err) {
        if (this.#dialect.isUniqueViolation(err)) return false
        throw err
      }
    }
    const updated = await this.#sql.run(
      `UPDATE source_cursors SET position = ?, generation = generation + 1, isolate_through = ?,
         updated_at = ? WHERE scope_id = ? AND generation = ?`,
      [next.position, next.isolateThrough, next.updatedAt, next.scopeId, expectedGeneration],
    )
    return updated.changes === 1
  }

  async highWatermark(scopeId: string): Promise<number> {
    const row = await this.#sql.get<{ p: number }>(
      'SELECT source_position AS p FROM scopes WHERE scope_id = ?',
      [scopeId],
    )
    return row?.p ?? 0
  }

  async listSources(scopeId: string, after: number, through: number): Promise<SourceRow[]> {
    return this.#sql.all(
      `SELECT ${SOURCE_COLUMNS} FROM sources WHERE scope_id = ? AND position > ? AND position <= ?
       ORDER BY position`,
      [scopeId, after, through],
    )
  }

  async payloadBytes(scopeId: string, position: number): Promise<number | undefined> {
    // OCTET_LENGTH: bytes on every dialect (SQLite's LENGTH counts characters of a text).
    const row = await this.#sql.get<{ n: number }>(
      'SELECT OCTET_LENGTH(payload) AS n FROM sources WHERE scope_id = ? AND position = ?',
      [scopeId, position],
    )
    return row === undefined ? undefined : Number(row.n)
  }

  sourceAt(scopeId: string, position: number): Promise<SourceBytesRow | undefined> {
    return this.#sql.get(
      `SELECT ${sourceBytesColumns(this.#dialect.asBytes)} FROM sources
       WHERE scope_id = ? AND position = ?`,
      [scopeId, position],
    )
  }

  async positionsOf(scopeId: string, sourceIds: readonly string[]): Promise<Map<string, number>> {
    if (sourceIds.length === 0) return new Map()
    const rows = await this.#sql.all<{ id: string; position: number }>(
      `SELECT source_id AS id, position FROM sources
       WHERE scope_id = ? AND source_type = 'content' AND source_id IN ${this.#dialect.inList.sql}`,
      [scopeId, this.#dialect.inList.bind(sourceIds)],
    )
    return new Map(rows.map((r) => [r.id, r.position]))
  }

  async getFailure(scopeId: string, position: number): Promise<FailureRow | undefined> {
    return this.#sql.get(
      `SELECT ${FAILURE_COLUMNS} FROM source_failures WHERE scope_id = ? AND position = ?`,
      [scopeId, position],
    )
  }

  async failuresBetween(scopeId: string, after: number, through: number): Promise<FailureRow[]> {
    return this.#sql.all(SELECT_FAILURES_BETWEEN, [scopeId, after, through])
  }

  async putFailure(r: FailureRow): Promise<void> {
    await this.#sql.run(
      `INSERT INTO source_failures (scope_id, position, source_id, attempts, error_code,
         error_message, state, skip_seq, first_failed_at, last_failed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ${FAILURE_UPSERT(this.#dialect)}`,
      [
        r.scopeId,
        r.position,
        r.sourceId,
        r.attempts,
        r.errorCode,
        r.errorMessage,
        r.state,
        r.skipSeq,
        r.firstFailedAt,
        r.lastFailedAt,
      ],
    )
  }

  async clearFailures(scopeId: string, through: number): Promise<void> {
    await this.#sql.run(
      `DELETE FROM source_failures WHERE scope_id = ? AND position <= ? AND state = 'failing'`,
      [scopeId, through],
    )
  }

  async allocateSeq(scopeId: string): Promise<number> {
    const seq = await this.#dialect.bumpCounter(this.#sql, 'change_seq', scopeId, 1)
    if (seq === undefined) throw new Error(`scope ${scopeId} has no sequence row`)
    return seq
  }

  async skippedBetween(scopeId: string, since: number, upTo: number): Promise<FailureRow[]> {
    return this.#sql.all(
      `SELECT ${FAILURE_COLUMNS} FROM source_failures
       WHERE scope_id = ? AND state = 'skipped' AND skip_seq > ? AND skip_seq <= ? ORDER BY skip_seq`,
      [scopeId, since, upTo],
    )
  }

  async insertRecord(r: FlushRecordRow): Promise<void> {
    await this.#sql.run(
      `INSERT INTO flush_records (record_id, scope_id, from_position, to_position, mode, model,
         prompt_version, operation_id, created_at, details_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.recordId,
        r.scopeId,
        r.fromPosition,
        r.toPosition,
        r.mode,
        r.model,
        r.promptVersion,
        r.operationId,
        r.createdAt,
        r.detailsJson,
      ],
    )
  }

  async listRecords(q: {
    scopeId: string
    recordId: string | undefined
    after: number
    limit: number
  }): Promise<FlushRecordRow[]> {
    if (q.recordId !== undefined) {
      return this.#sql.all(
        `SELECT ${RECORD_COLUMNS} FROM flush_records WHERE scope_id = ? AND record_id = ?`,
        [q.scopeId, q.recordId],
      )
    }
    return this.#sql.all(
      `SELECT ${RECORD_COLUMNS} FROM flush_records WHERE scope_id = ? AND to_position > ?
       ORDER BY to_position LIMIT ?`,
      [q.scopeId, q.after, q.limit],
    )
  }

  async pendingScopes(after: string, limit: number): Promise<string[]> {
    const rows = await this.#sql.all<{ scopeId: string }>(
      `SELECT s.scope_id AS scopeId FROM scopes s
       LEFT JOIN source_cursors c ON c.scope_id = s.scope_id
       WHERE s.source_position > COALESCE(c.position, 0) AND s.scope_id > ?
       ORDER BY s.scope_id LIMIT ?`,
      [after, limit],
    )
    return rows.map((r) => r.scopeId)
  }

  async allCursors(): Promise<CursorRow[]> {
    return this.#sql.all(`SELECT ${CURSOR_COLUMNS} FROM source_cursors ORDER BY scope_id`)
  }

  async allFailures(): Promise<FailureRow[]> {
    return this.#sql.all(
      `SELECT ${FAILURE_COLUMNS} FROM source_failures ORDER BY scope_id, position`,
    )
  }

  async allRecordWindows(): Promise<
    { scopeId: string; fromPosition: number; toPosition: number }[]
  > {
    return this.#sql.all(
      `SELECT scope_id AS scopeId, from_position AS fromPosition, to_position AS toPosition
       FROM flush_records ORDER BY scope_id, to_position`,
    )
  }
}
