import { PowerContextError } from '../../core/errors.js'
import type { MemoryState, MergeRecord, SourceType } from '../../core/memory-model.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import type {
  ChangeRow,
  CurrentMemory,
  DialectTx,
  HeadRow,
  MemoryRow,
  NewChangeRow,
  ScopeRow,
  SourceRow,
  StateCountRow,
  TextHit,
  VersionRow,
} from '../spi/dialect-tx.js'
import type { RowSession } from '../spi/legacy-tx.js'
import {
  CHANGE_COLUMNS,
  HEAD_COLUMNS,
  MEMORY_COLUMNS,
  SOURCE_COLUMNS,
  VERSION_COLUMNS,
} from '../sql/columns.js'
import { LegacyRows } from '../sql/legacy-rows.js'
import {
  CAS_MEMORY,
  INSERT_MEMORY,
  INSERT_SOURCE,
  INSERT_VERSION,
  SELECT_ALL_CHANGES,
  SELECT_ALL_HEADS,
  SELECT_ALL_MEMORIES,
  SELECT_ALL_VERSIONS,
  SELECT_SCOPE_PAGE,
  SELECT_SCOPE_SEQS,
  SELECT_STATE_COUNTS,
} from '../sql/statements.js'
import { TransferRows } from '../sql/transfer-rows.js'
import { MysqlJournalTx } from './mysql-journal-tx.js'
import { casMergeUndone, checkFulltext, insertMergeRows, selectMerges } from './mysql-merge-rows.js'
import { encodeFtsText, ftsBooleanQuery, searchTextSql } from './mysql-search.js'
import type { SqlSession } from './mysql-session.js'
import { CURRENT_SQL, splitCurrent } from './mysql-session.js'
import type { MysqlVectorTx } from './mysql-vector-tx.js'

/**
 * Row verbs over one pooled connection inside one transaction (STYLE R3: SQL only, no decision).
 * Per-scope counters (change seq, journal position) are read with `SELECT … FOR UPDATE` and
 * written in the same transaction, so concurrent writers get contiguous numbers: the row lock is
 * held until commit, and a rollback gives the numbers back.
 */
export class MysqlDialectTx implements DialectTx {
  readonly #sql: SqlSession
  readonly #ftsProblem: string | null
  readonly vectors: MysqlVectorTx
  readonly journal: MysqlJournalTx
  readonly legacy: LegacyRows
  readonly pages: TransferRows

  constructor(sql: SqlSession, vectors: MysqlVectorTx, ftsProblem: string | null) {
    this.#sql = sql
    this.#ftsProblem = ftsProblem
    this.vectors = vectors
    this.journal = new MysqlJournalTx(sql)
    const session: RowSession = {
      all: (text, params) => sql.all(text, params),
      run: async (text, params) => void (await sql.run(text, params)),
    }
    this.legacy = new LegacyRows(session)
    this.pages = new TransferRows(session)
  }

  /** Scopes whose row this transaction has already ensured (and so locked). */
  readonly #ensured = new Set<string>()

  async #ensureScope(scopeId: string): Promise<void> {
    if (this.#ensured.has(scopeId)) return
    await this.#sql.run(
      'INSERT INTO scopes (scope_id) VALUES (?) ON DUPLICATE KEY UPDATE scope_id = scope_id',
      [scopeId],
    )
    this.#ensured.add(scopeId)
  }

  /** Adds `n` to a scope counter under its row lock; the new value. */
  async #bump(scopeId: string, column: 'change_seq' | 'source_position', n: number) {
    const row = await this.#sql.get<{ value: number }>(
      `SELECT ${column} AS value FROM scopes WHERE scope_id = ? FOR UPDATE`,
      [scopeId],
    )
    if (row === undefined) throw new Error(`scope ${scopeId} has no counter row`)
    const value = row.value + n
    await this.#sql.run(`UPDATE scopes SET ${column} = ? WHERE scope_id = ?`, [value, scopeId])
    return value
  }

  async getMemory(memoryId: string): Promise<MemoryRow | undefined> {
    return this.#sql.get(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE memory_id = ?`, [memoryId])
  }

  async getVersion(memoryId: string, version: number): Promise<VersionRow | undefined> {
    return this.#sql.get(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE memory_id = ? AND version = ?`,
      [memoryId, version],
    )
  }

  async listVersions(memoryId: string): Promise<VersionRow[]> {
    return this.#sql.all(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE memory_id = ? ORDER BY version`,
      [memoryId],
    )
  }

  async loadCurrent(memoryIds: readonly string[]): Promise<Map<string, CurrentMemory>> {
    const out = new Map<string, CurrentMemory>()
    if (memoryIds.length === 0) return out
    for (const r of await this.#sql.all<Record<string, unknown>>(CURRENT_SQL, [memoryIds])) {
      const current = splitCurrent(r)
      out.set(current.row.memoryId, current)
    }
    return out
  }

  async findActiveByHash(scopeId: string, contentHash: string): Promise<HeadRow[]> {
    return this.#sql.all(
      `SELECT ${HEAD_COLUMNS} FROM memory_heads WHERE scope_id = ? AND content_hash = ?`,
      [scopeId, contentHash],
    )
  }

  async missingSources(scopeId: string, sourceIds: readonly string[]): Promise<string[]> {
    if (sourceIds.length === 0) return []
    const found = await this.#sql.all<{ id: string }>(
      `SELECT source_id AS id FROM sources
       WHERE scope_id = ? AND source_type = 'content' AND source_id IN (?)`,
      [scopeId, sourceIds],
    )
    const present = new Set(found.map((r) => r.id))
    return sourceIds.filter((id) => !present.has(id)).sort()
  }

  async listMemories(q: {
    scopeId: string
    states: readonly MemoryState[]
    kinds: readonly string[] | undefined
    after: string | undefined
    limit: number
  }): Promise<MemoryRow[]> {
    if (q.states.length === 0 || q.kinds?.length === 0) return []
    const kinds = q.kinds === undefined ? '' : ' AND kind IN (?)'
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories
       WHERE scope_id = ? AND memory_id > ? AND state IN (?)${kinds}
       ORDER BY memory_id LIMIT ?`,
      [q.scopeId, q.after ?? '', q.states, ...(q.kinds === undefined ? [] : [q.kinds]), q.limit],
    )
  }

  async recentMemories(q: {
    scopeIds: readonly string[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<MemoryRow[]> {
    if (q.scopeIds.length === 0 || q.kinds?.length === 0) return []
    const kinds = q.kinds === undefined ? '' : ' AND kind IN (?)'
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories
       WHERE scope_id IN (?) AND state = 'active'${kinds}
       ORDER BY updated_at DESC, memory_id DESC LIMIT ?`,
      [q.scopeIds, ...(q.kinds === undefined ? [] : [q.kinds]), q.limit],
    )
  }

  async listChanges(scopeId: string, since: number, limit: number): Promise<ChangeRow[]> {
    return this.#sql.all(
      `SELECT ${CHANGE_COLUMNS} FROM memory_changes WHERE scope_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      [scopeId, since, limit],
    )
  }

  async listChangesOfMemory(memoryId: string): Promise<ChangeRow[]> {
    return this.#sql.all(
      `SELECT ${CHANGE_COLUMNS} FROM memory_changes WHERE memory_id = ? ORDER BY seq`,
      [memoryId],
    )
  }

  async headSeq(scopeId: string): Promise<number> {
    const row = await this.#sql.get<{ seq: number }>(
      'SELECT change_seq AS seq FROM scopes WHERE scope_id = ?',
      [scopeId],
    )
    return row?.seq ?? 0
  }

  async listScopes(after: string, limit: number): Promise<ScopeRow[]> {
    return this.#sql.all(SELECT_SCOPE_PAGE, [after, limit])
  }

  async countStates(first: string, last: string): Promise<StateCountRow[]> {
    const rows = await this.#sql.all<StateCountRow>(SELECT_STATE_COUNTS, [first, last])
    // COUNT(*) is a BIGINT, which the driver may hand over as a string.
    return rows.map((r) => ({ ...r, n: Number(r.n) }))
  }

  /**
   * FULLTEXT candidates in BOOLEAN MODE: the encoded terms OR-ed, the scope (and kinds) filtered
   * in SQL, best relevance first, then memory id.
   * @throws PowerContextError `capability_not_supported` when the startup probe found no usable
   *   FULLTEXT index (never an empty result instead).
   */
  async searchText(q: {
    scopeId: string
    terms: readonly PlannedTerm[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<TextHit[]> {
    if (this.#ftsProblem !== null) {
      throw new PowerContextError(
        'capability_not_supported',
        `full-text search is unavailable: ${this.#ftsProblem}`,
        { capability: 'fts' },
      )
    }
    if (q.terms.length === 0 || q.kinds?.length === 0) return []
    const query = ftsBooleanQuery(q.terms)
    const perTerm = q.terms.map((t) => ftsBooleanQuery([t]))
    const kinds = q.kinds === undefined ? [] : [q.kinds]
    const rows = await this.#sql.all<TextHit>(
      searchTextSql(q.kinds !== undefined, q.terms.length),
      [...perTerm, query, query, q.scopeId, ...kinds, q.limit],
    )
    return rows.map((r) => ({
      memoryId: r.memoryId,
      version: r.version,
      contentHash: r.contentHash,
      searchableText: r.searchableText,
    }))
  }

  async insertMemory(row: MemoryRow): Promise<void> {
    await this.#ensureScope(row.scopeId)
    await this.#sql.run(INSERT_MEMORY.sql, INSERT_MEMORY.params(row))
  }

  async insertVersion(v: VersionRow): Promise<void> {
    await this.#sql.run(INSERT_VERSION.sql, INSERT_VERSION.params(v))
  }

  /** The head CAS: `UPDATE … WHERE current_version = ? AND state_version = ?`, one matched row. */
  async casMemory(
    next: MemoryRow,
    expected: { version: number; stateVersion: number },
  ): Promise<boolean> {
    const result = await this.#sql.run(CAS_MEMORY.sql, CAS_MEMORY.params({ next, expected }))
    return result.affectedRows === 1
  }

  async appendChanges(scopeId: string, rows: readonly NewChangeRow[]): Promise<number[]> {
    if (rows.length === 0) return []
    await this.#ensureScope(scopeId)
    const first = (await this.#bump(scopeId, 'change_seq', rows.length)) - rows.length + 1
    await this.#sql.run(
      `INSERT INTO memory_changes (scope_id, seq, op, memory_id, from_revision, to_revision,
         from_state, to_state, reason, operation_id, at) VALUES ?`,
      [
        rows.map((r, i) => [
          scopeId,
          first + i,
          r.op,
          r.memoryId,
          r.fromRevision,
          r.toRevision,
          r.fromState,
          r.toState,
          r.reason,
          r.operationId,
          r.at,
        ]),
      ],
    )
    return rows.map((_r, i) => first + i)
  }

  async putHead(h: HeadRow): Promise<void> {
    await this.#sql.run(
      `INSERT INTO memory_heads (memory_id, scope_id, version, kind, content_hash, searchable_text,
         fts_text) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE scope_id = VALUES(scope_id), version = VALUES(version),
         kind = VALUES(kind), content_hash = VALUES(content_hash),
         searchable_text = VALUES(searchable_text), fts_text = VALUES(fts_text)`,
      [
        h.memoryId,
        h.scopeId,
        h.version,
        h.kind,
        h.contentHash,
        h.searchableText,
        encodeFtsText(h.searchableText),
      ],
    )
  }

  async deleteHead(memoryId: string): Promise<void> {
    // The vector, when the dialect has one, lives in the same row.
    await this.#sql.run('DELETE FROM memory_heads WHERE memory_id = ?', [memoryId])
  }

  async insertMerge(m: MergeRecord): Promise<void> {
    await insertMergeRows(this.#sql, m)
  }

  async effectiveMergeOfResult(memoryId: string): Promise<MergeRecord | undefined> {
    return (await selectMerges(this.#sql, 'effective-result', memoryId))[0]
  }

  async mergesOfMemory(memoryId: string): Promise<MergeRecord[]> {
    return selectMerges(this.#sql, 'of-memory', memoryId)
  }

  async casMergeUndone(mergeId: string, at: string, operationId: string): Promise<boolean> {
    return casMergeUndone(this.#sql, mergeId, at, operationId)
  }

  async allMerges(): Promise<MergeRecord[]> {
    return selectMerges(this.#sql, 'all', undefined)
  }

  async getSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
  ): Promise<SourceRow | undefined> {
    return this.#sql.get(
      `SELECT ${SOURCE_COLUMNS} FROM sources WHERE scope_id = ? AND source_type = ? AND source_id = ?`,
      [scopeId, sourceType, sourceId],
    )
  }

  async nextSourcePosition(scopeId: string): Promise<number> {
    await this.#ensureScope(scopeId)
    return this.#bump(scopeId, 'source_position', 1)
  }

  async insertSource(s: SourceRow): Promise<void> {
    await this.#sql.run(INSERT_SOURCE.sql, INSERT_SOURCE.params(s))
  }

  async allMemories(): Promise<MemoryRow[]> {
    return this.#sql.all(SELECT_ALL_MEMORIES)
  }

  async allVersions(): Promise<VersionRow[]> {
    return this.#sql.all(SELECT_ALL_VERSIONS)
  }

  async allHeads(): Promise<HeadRow[]> {
    return this.#sql.all(SELECT_ALL_HEADS)
  }

  async allChanges(): Promise<ChangeRow[]> {
    return this.#sql.all(SELECT_ALL_CHANGES)
  }

  async scopeSeqs(): Promise<Map<string, number>> {
    const rows = await this.#sql.all<{ scopeId: string; seq: number }>(SELECT_SCOPE_SEQS)
    return new Map(rows.map((r) => [r.scopeId, r.seq]))
  }

  /** FULLTEXT consistency (see {@link checkFulltext}). */
  async checkIndexes(): Promise<string[]> {
    return checkFulltext(this.#sql, this.#ftsProblem)
  }

  async clearProjections(): Promise<void> {
    // DELETE, not TRUNCATE: TRUNCATE is DDL and would commit the rebuild half way.
    await this.#sql.run('DELETE FROM memory_heads')
  }
}
