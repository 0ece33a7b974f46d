/**
 * Row verbs of the administrative erase (docs/storage.md "Redaction"), written once over the
 * session every SQL adapter offers (SQL only, no decision). `DialectTx.redactions`
 * carries them.
 */
import type { SourceType } from '../../core/memory-model.js'
import { REDACTED_TEXT } from '../../core/redaction.js'
import type { VersionRow } from '../spi/dialect-tx.js'
import type { FlushRecordRow } from '../spi/journal-tx.js'
import type { RedactionRow, RedactionTx } from '../spi/redaction-types.js'
import { RECORD_COLUMNS, VERSION_COLUMNS } from './columns.js'
import type { SqlSession } from './session.js'

const REDACTION_COLUMNS = `scope_id AS scopeId, seq, target, source_type AS sourceType,
  source_id AS sourceId, memory_id AS memoryId, version, record_id AS recordId, rule, reason,
  redacted_at AS redactedAt, operation_id AS operationId`

const SELECT = `SELECT ${REDACTION_COLUMNS} FROM redactions`

/** Numbers as numbers whatever the driver hands back for BIGINT columns. */
function typed(r: RedactionRow): RedactionRow {
  return { ...r, seq: Number(r.seq), version: r.version === null ? null : Number(r.version) }
}

function typedRecord(r: FlushRecordRow): FlushRecordRow {
  return { ...r, fromPosition: Number(r.fromPosition), toPosition: Number(r.toPosition) }
}

/** The redaction verbs of one transaction. */
export class RedactionRows implements RedactionTx {
  readonly #s: SqlSession

  constructor(session: SqlSession) {
    this.#s = session
  }

  async insert(r: RedactionRow): Promise<void> {
    await this.#s.run(
      `INSERT INTO redactions (scope_id, seq, target, source_type, source_id, memory_id, version,
         record_id, rule, reason, redacted_at, operation_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.scopeId,
        r.seq,
        r.target,
        r.sourceType,
        r.sourceId,
        r.memoryId,
        r.version,
        r.recordId,
        r.rule,
        r.reason,
        r.redactedAt,
        r.operationId,
      ],
    )
  }

  async between(scopeId: string, since: number, upTo: number): Promise<RedactionRow[]> {
    const rows = await this.#s.all<RedactionRow>(
      `${SELECT} WHERE scope_id = ? AND seq > ? AND seq <= ? ORDER BY seq`,
      [scopeId, since, upTo],
    )
    return rows.map(typed)
  }

  async ofMemory(memoryId: string): Promise<RedactionRow[]> {
    const rows = await this.#s.all<RedactionRow>(`${SELECT} WHERE memory_id = ? ORDER BY version`, [
      memoryId,
    ])
    return rows.map(typed)
  }

  async ofSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
  ): Promise<RedactionRow | undefined> {
    const row = await this.#s.get<RedactionRow>(
      `${SELECT} WHERE scope_id = ? AND source_type = ? AND source_id = ?`,
      [scopeId, sourceType, sourceId],
    )
    return row === undefined ? undefined : typed(row)
  }

  async ofRecord(scopeId: string, recordId: string): Promise<RedactionRow | undefined> {
    const row = await this.#s.get<RedactionRow>(`${SELECT} WHERE scope_id = ? AND record_id = ?`, [
      scopeId,
      recordId,
    ])
    return row === undefined ? undefined : typed(row)
  }

  async recordsCovering(scopeId: string, position: number): Promise<FlushRecordRow[]> {
    const rows = await this.#s.all<FlushRecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM flush_records WHERE scope_id = ? AND to_position >= ?
         AND from_position < ? ORDER BY to_position`,
      [scopeId, position, position],
    )
    return rows.map(typedRecord)
  }

  async recordsOfOperation(scopeId: string, operationId: string): Promise<FlushRecordRow[]> {
    const rows = await this.#s.all<FlushRecordRow>(
      `SELECT ${RECORD_COLUMNS} FROM flush_records WHERE scope_id = ? AND operation_id = ?
         ORDER BY to_position`,
      [scopeId, operationId],
    )
    return rows.map(typedRecord)
  }

  async page(after: { scopeId: string; seq: number }, limit: number): Promise<RedactionRow[]> {
    const rows = await this.#s.all<RedactionRow>(
      `${SELECT} WHERE scope_id >= ? AND (scope_id > ? OR seq > ?) ORDER BY scope_id, seq LIMIT ?`,
      [after.scopeId, after.scopeId, after.seq, limit],
    )
    return rows.map(typed)
  }

  scopeVersions(
    scopeId: string,
    after: { memoryId: string; version: number },
    limit: number,
  ): Promise<VersionRow[]> {
    return this.#s.all(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE scope_id = ? AND memory_id >= ?
         AND (memory_id > ? OR version > ?) ORDER BY memory_id, version LIMIT ?`,
      [scopeId, after.memoryId, after.memoryId, after.version, limit],
    )
  }

  async eraseVersion(
    memoryId: string,
    version: number,
    operationId: string,
    marker: string,
  ): Promise<void> {
    await this.#s.run(
      `UPDATE memory_versions SET text = ?, reason = CASE WHEN reason IS NULL THEN NULL ELSE ? END
       WHERE memory_id = ? AND version = ?`,
      [marker, marker, memoryId, version],
    )
    await this.#s.run(
      `UPDATE memory_changes SET reason = ? WHERE memory_id = ? AND to_revision = ?
         AND operation_id = ? AND reason IS NOT NULL`,
      [marker, memoryId, version, operationId],
    )
  }

  async eraseSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
    payload: string,
  ): Promise<void> {
    await this.#s.run(
      `DELETE FROM legacy_source_payloads WHERE scope_id = ? AND source_type = ? AND source_id = ?`,
      [scopeId, sourceType, sourceId],
    )
    await this.#s.run(
      'UPDATE sources SET payload = ? WHERE scope_id = ? AND source_type = ? AND source_id = ?',
      [payload, scopeId, sourceType, sourceId],
    )
    // A failed flush attempt's message may quote the source (a parse error, model output).
    await this.#s.run(
      'UPDATE source_failures SET error_message = ? WHERE scope_id = ? AND source_id = ?',
      [REDACTED_TEXT, scopeId, sourceId],
    )
  }

  async eraseRecord(scopeId: string, recordId: string, detailsJson: string): Promise<void> {
    await this.#s.run(
      'UPDATE flush_records SET details_json = ? WHERE scope_id = ? AND record_id = ?',
      [detailsJson, scopeId, recordId],
    )
  }
}
