import type { Bm25Statistics } from '../../core/bm25.js'
import type { MemoryState, MergeRecord, SourceType } from '../../core/memory-model.js'
import type { PlannedTerm } from '../../core/query-plan.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import type { LegacyTx } from '../spi/legacy-tx.js'
import type {
  ChangeRow,
  CurrentMemory,
  HeadRow,
  MemoryRow,
  NewChangeRow,
  ScopeRow,
  StateCountRow,
  TextHit,
  VersionRow,
} from '../spi/rows.js'
import type { SourceRow } from '../spi/source-row.js'
import type { TransferTx } from '../spi/transfer-tx.js'
import type { VectorTx } from '../spi/vector-tx.js'
import {
  CHANGE_COLUMNS,
  HEAD_COLUMNS,
  MEMORY_COLUMNS,
  SOURCE_COLUMNS,
  VERSION_COLUMNS,
} from './columns.js'
import { currentSql, splitCurrent } from './current.js'
import { placeholders, type SqlDialect } from './dialect.js'
import { FreshnessRows } from './freshness-rows.js'
import { LegacyRows } from './legacy-rows.js'
import { ReceiptRows } from './receipt-rows.js'
import { RedactionRows } from './redaction-rows.js'
import type { SqlSession } from './session.js'
import { SqlJournal } from './sql-journal.js'
import { SqlMerges } from './sql-merges.js'
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
} from './statements.js'
import { TransferRows } from './transfer-rows.js'

const HEAD_BASE_COLUMNS = [
  'memory_id',
  'scope_id',
  'version',
  'kind',
  'content_hash',
  'searchable_text',
] as const

/**
 * The row verbs of one transaction (SQL only, no decision), written once for every SQL
 * dialect over a {@link SqlSession} and the dialect's hooks ({@link SqlDialect}: `IN` lists,
 * upserts, counters, multi-row inserts, full-text and vector dialects). One instance per
 * transaction: the scopes it has ensured (and so, on the MySQL family, locked) are remembered.
 */
export class SqlRows implements DialectTx {
  readonly #sql: SqlSession
  readonly #dialect: SqlDialect
  readonly #merges: SqlMerges
  readonly vectors: VectorTx | undefined
  readonly journal: SqlJournal
  readonly legacy: LegacyTx
  readonly pages: TransferTx
  readonly redactions: RedactionRows
  readonly receipts: ReceiptRows
  readonly freshness: FreshnessRows
  /** Scopes whose row this transaction has already ensured. */
  readonly #ensured = new Set<string>()

  constructor(sql: SqlSession, dialect: SqlDialect) {
    this.#sql = sql
    this.#dialect = dialect
    this.#merges = new SqlMerges(sql, dialect)
    this.vectors = dialect.vectors(sql)
    this.journal = new SqlJournal(sql, dialect)
    this.legacy = new LegacyRows(sql)
    this.pages = new TransferRows(sql)
    this.redactions = new RedactionRows(sql)
    this.receipts = new ReceiptRows(sql, dialect)
    this.freshness = new FreshnessRows(sql, dialect)
  }

  async #ensureScope(scopeId: string): Promise<void> {
    if (this.#ensured.has(scopeId)) return
    await this.#sql.run(
      `INSERT INTO scopes (scope_id) VALUES (?) ${this.#dialect.ignoreDuplicate(['scope_id'])}`,
      [scopeId],
    )
    this.#ensured.add(scopeId)
  }

  /** `IN` over a list: the SQL and the bound value. */
  #in(values: readonly unknown[]): { sql: string; value: unknown } {
    return { sql: this.#dialect.inList.sql, value: this.#dialect.inList.bind(values) }
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

  async listVersions(memoryId: string, after = 0, limit?: number): Promise<VersionRow[]> {
    const bounded = limit === undefined ? '' : ' LIMIT ?'
    return this.#sql.all(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE memory_id = ? AND version > ? ORDER BY version${bounded}`,
      limit === undefined ? [memoryId, after] : [memoryId, after, limit],
    )
  }

  async loadCurrent(memoryIds: readonly string[]): Promise<Map<string, CurrentMemory>> {
    const out = new Map<string, CurrentMemory>()
    if (memoryIds.length === 0) return out
    const rows = await this.#sql.all<Record<string, unknown>>(currentSql(this.#dialect), [
      this.#dialect.inList.bind(memoryIds),
    ])
    for (const r of rows) {
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
    const ids = this.#in(sourceIds)
    const found = await this.#sql.all<{ id: string }>(
      `SELECT source_id AS id FROM sources
       WHERE scope_id = ? AND source_type = 'content' AND source_id IN ${ids.sql}`,
      [scopeId, ids.value],
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
    const states = this.#in(q.states)
    const kinds = q.kinds === undefined ? undefined : this.#in(q.kinds)
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories
       WHERE scope_id = ? AND memory_id > ? AND state IN ${states.sql}${kinds === undefined ? '' : ` AND kind IN ${kinds.sql}`}
       ORDER BY memory_id LIMIT ?`,
      [
        q.scopeId,
        q.after ?? '',
        states.value,
        ...(kinds === undefined ? [] : [kinds.value]),
        q.limit,
      ],
    )
  }

  async recentMemories(q: {
    scopeIds: readonly string[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<MemoryRow[]> {
    if (q.scopeIds.length === 0 || q.kinds?.length === 0) return []
    const scopes = this.#in(q.scopeIds)
    const kinds = q.kinds === undefined ? undefined : this.#in(q.kinds)
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories
       WHERE scope_id IN ${scopes.sql} AND state = 'active'${kinds === undefined ? '' : ` AND kind IN ${kinds.sql}`}
       ORDER BY updated_at DESC, memory_id DESC LIMIT ?`,
      [scopes.value, ...(kinds === undefined ? [] : [kinds.value]), q.limit],
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
    // COUNT(*) is a BIGINT, which a driver may hand over as a string.
    return rows.map((r) => ({ ...r, n: Number(r.n) }))
  }

  /** The dialect's full-text candidates (see {@link SqlDialect.fullText}). */
  async searchText(q: {
    scopeId: string
    terms: readonly PlannedTerm[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<TextHit[]> {
    return this.#dialect.fullText.searchText(this.#sql, q)
  }

  /** The dialect's BM25 statistics, or undefined when it keeps its native order. */
  async textStatistics(terms: readonly PlannedTerm[]): Promise<Bm25Statistics | undefined> {
    return this.#dialect.fullText.statistics?.(this.#sql, terms)
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
    return result.changes === 1
  }

  async appendChanges(scopeId: string, rows: readonly NewChangeRow[]): Promise<number[]> {
    if (rows.length === 0) return []
    await this.#ensureScope(scopeId)
    const last = await this.#dialect.bumpCounter(this.#sql, 'change_seq', scopeId, rows.length)
    if (last === undefined) throw new Error(`scope ${scopeId} has no sequence row`)
    const first = last - rows.length + 1
    await this.#dialect.insertMany(
      this.#sql,
      `INSERT INTO memory_changes (scope_id, seq, op, memory_id, from_revision, to_revision,
         from_state, to_state, reason, operation_id, at)`,
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
    )
    return rows.map((_r, i) => first + i)
  }

  async putHead(h: HeadRow): Promise<void> {
    const fts = this.#dialect.fullText
    const columns = [...HEAD_BASE_COLUMNS, ...fts.headColumns]
    await this.#sql.run(
      `INSERT INTO memory_heads (${columns.join(', ')}) VALUES (${placeholders(columns.length)})
       ${this.#dialect.upsert(['memory_id'], columns.slice(1))}`,
      [
        h.memoryId,
        h.scopeId,
        h.version,
        h.kind,
        h.contentHash,
        h.searchableText,
        ...fts.headValues(h),
      ],
    )
    await fts.putIndexRow?.(this.#sql, h)
  }

  async deleteHead(memoryId: string): Promise<void> {
    if (!this.#dialect.vectorsInHeadRow) await this.vectors?.deleteVector(memoryId)
    await this.#sql.run('DELETE FROM memory_heads WHERE memory_id = ?', [memoryId])
    await this.#dialect.fullText.dropIndexRow?.(this.#sql, memoryId)
  }

  insertMerge(merge: MergeRecord): Promise<void> {
    return this.#merges.insert(merge)
  }

  async effectiveMergeOfResult(memoryId: string): Promise<MergeRecord | undefined> {
    return (await this.#merges.select('effective-result', memoryId))[0]
  }

  mergesOfMemory(memoryId: string): Promise<MergeRecord[]> {
    return this.#merges.select('of-memory', memoryId)
  }

  casMergeUndone(mergeId: string, at: string, operationId: string): Promise<boolean> {
    return this.#merges.undo(mergeId, at, operationId)
  }

  allMerges(): Promise<MergeRecord[]> {
    return this.#merges.select('all', undefined)
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
    const position = await this.#dialect.bumpCounter(this.#sql, 'source_position', scopeId, 1)
    if (position === undefined) throw new Error(`scope ${scopeId} has no journal row`)
    return position
  }

  async insertSource(s: SourceRow): Promise<void> {
    await this.#sql.run(INSERT_SOURCE.sql, INSERT_SOURCE.params(s))
  }

  allMemories(): Promise<MemoryRow[]> {
    return this.#sql.all(SELECT_ALL_MEMORIES)
  }

  allVersions(): Promise<VersionRow[]> {
    return this.#sql.all(SELECT_ALL_VERSIONS)
  }

  allHeads(): Promise<HeadRow[]> {
    return this.#sql.all(SELECT_ALL_HEADS)
  }

  allChanges(): Promise<ChangeRow[]> {
    return this.#sql.all(SELECT_ALL_CHANGES)
  }

  async scopeSeqs(): Promise<Map<string, number>> {
    const rows = await this.#sql.all<{ scopeId: string; seq: number }>(SELECT_SCOPE_SEQS)
    return new Map(rows.map((r) => [r.scopeId, r.seq]))
  }

  /** The dialect's index checks (full-text index against the heads). */
  checkIndexes(): Promise<string[]> {
    return this.#dialect.fullText.checkIndexes(this.#sql)
  }

  clearProjections(): Promise<void> {
    return this.#dialect.fullText.clearProjections(this.#sql)
  }
}
