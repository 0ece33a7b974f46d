import type Database from 'better-sqlite3'

import type { SourceRow } from '../spi/dialect-tx.js'
import type { CursorRow, FailureRow, FlushRecordRow, JournalTx } from '../spi/journal-tx.js'
import { CURSOR_COLUMNS, FAILURE_COLUMNS, RECORD_COLUMNS, SOURCE_COLUMNS } from '../sql/columns.js'
import { SELECT_FAILURES_BETWEEN } from '../sql/statements.js'
import { SqliteStatements } from './sqlite-statements.js'

/**
 * Journal verbs over one connection (SQL only, STYLE R3): `source_cursors`, `source_failures`
 * and `flush_records` (schema migration 4), always inside the caller's transaction.
 */
export class SqliteJournalTx implements JournalTx {
  readonly #sql: SqliteStatements

  constructor(db: Database.Database) {
    this.#sql = new SqliteStatements(db)
  }

  async getCursor(scopeId: string): Promise<CursorRow | undefined> {
    return this.#sql.get(`SELECT ${CURSOR_COLUMNS} FROM source_cursors WHERE scope_id = ?`, scopeId)
  }

  async casCursor(
    next: { scopeId: string; position: number; isolateThrough: number; updatedAt: string },
    expectedGeneration: number,
  ): Promise<boolean> {
    if (expectedGeneration === 0) {
      const inserted = this.#sql
        .stmt(
          `INSERT INTO source_cursors (scope_id, position, generation, isolate_through, updated_at)
         VALUES (?, ?, 1, ?, ?) ON CONFLICT (scope_id) DO NOTHING`,
        )
        .run(next.scopeId, next.position, next.isolateThrough, next.updatedAt)
      return inserted.changes === 1
    }
    const updated = this.#sql
      .stmt(
        `UPDATE source_cursors SET position = ?, generation = generation + 1, isolate_through = ?,
         updated_at = ? WHERE scope_id = ? AND generation = ?`,
      )
      .run(next.position, next.isolateThrough, next.updatedAt, next.scopeId, expectedGeneration)
    return updated.changes === 1
  }

  async highWatermark(scopeId: string): Promise<number> {
    return (
      this.#sql.get<{ p: number }>(
        'SELECT source_position AS p FROM scopes WHERE scope_id = ?',
        scopeId,
      )?.p ?? 0
    )
  }

  async listSources(scopeId: string, after: number, through: number): Promise<SourceRow[]> {
    return this.#sql.all(
      `SELECT ${SOURCE_COLUMNS} FROM sources WHERE scope_id = ? AND position > ? AND position <= ?
       ORDER BY position`,
      scopeId,
      after,
      through,
    )
  }

  async positionsOf(scopeId: string, sourceIds: readonly string[]): Promise<Map<string, number>> {
    if (sourceIds.length === 0) return new Map()
    const rows = this.#sql.all<{ id: string; position: number }>(
      `SELECT s.source_id AS id, s.position FROM json_each(?) j JOIN sources s
         ON s.scope_id = ? AND s.source_type = 'content' AND s.source_id = j.value`,
      JSON.stringify(sourceIds),
      scopeId,
    )
    return new Map(rows.map((r) => [r.id, r.position]))
  }

  async getFailure(scopeId: string, position: number): Promise<FailureRow | undefined> {
    return this.#sql.get(
      `SELECT ${FAILURE_COLUMNS} FROM source_failures WHERE scope_id = ? AND position = ?`,
      scopeId,
      position,
    )
  }

  async failuresBetween(scopeId: string, after: number, through: number): Promise<FailureRow[]> {
    return this.#sql.all(SELECT_FAILURES_BETWEEN, scopeId, after, through)
  }

  async putFailure(r: FailureRow): Promise<void> {
    this.#sql
      .stmt(
        `INSERT INTO source_failures (scope_id, position, source_id, attempts, error_code,
         error_message, state, skip_seq, first_failed_at, last_failed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope_id, position) DO UPDATE SET attempts = excluded.attempts,
         error_code = excluded.error_code, error_message = excluded.error_message,
         state = excluded.state, skip_seq = excluded.skip_seq,
         last_failed_at = excluded.last_failed_at`,
      )
      .run(
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
      )
  }

  async clearFailures(scopeId: string, through: number): Promise<void> {
    this.#sql
      .stmt(
        `DELETE FROM source_failures WHERE scope_id = ? AND position <= ? AND state = 'failing'`,
      )
      .run(scopeId, through)
  }

  async allocateSeq(scopeId: string): Promise<number> {
    const row = this.#sql.get<{ seq: number }>(
      'UPDATE scopes SET change_seq = change_seq + 1 WHERE scope_id = ? RETURNING change_seq AS seq',
      scopeId,
    )
    if (row === undefined) throw new Error(`scope ${scopeId} has no sequence row`)
    return row.seq
  }

  async skippedBetween(scopeId: string, since: number, upTo: number): Promise<FailureRow[]> {
    return this.#sql.all(
      `SELECT ${FAILURE_COLUMNS} FROM source_failures
       WHERE scope_id = ? AND state = 'skipped' AND skip_seq > ? AND skip_seq <= ? ORDER BY skip_seq`,
      scopeId,
      since,
      upTo,
    )
  }

  async insertRecord(r: FlushRecordRow): Promise<void> {
    this.#sql
      .stmt(
        `INSERT INTO flush_records (record_id, scope_id, from_position, to_position, mode, model,
         prompt_version, operation_id, created_at, details_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
        q.scopeId,
        q.recordId,
      )
    }
    return this.#sql.all(
      `SELECT ${RECORD_COLUMNS} FROM flush_records WHERE scope_id = ? AND to_position > ?
       ORDER BY to_position LIMIT ?`,
      q.scopeId,
      q.after,
      q.limit,
    )
  }

  async pendingScopes(after: string, limit: number): Promise<string[]> {
    return this.#sql
      .all<{ scopeId: string }>(
        `SELECT s.scope_id AS scopeId FROM scopes s LEFT JOIN source_cursors c ON c.scope_id = s.scope_id
       WHERE s.source_position > COALESCE(c.position, 0) AND s.scope_id > ?
       ORDER BY s.scope_id LIMIT ?`,
        after,
        limit,
      )
      .map((r) => r.scopeId)
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
