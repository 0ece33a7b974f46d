import type Database from 'better-sqlite3'

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
import { SqliteJournalTx } from './sqlite-journal-tx.js'
import { SqliteMergeRows } from './sqlite-merge-rows.js'
import { CURRENT_SQL, splitCurrent } from './sqlite-rows.js'
import { HEAD_DELETE_TRIGGER } from './sqlite-schema.js'
import {
  FTS_CANDIDATES_BY_KIND_SQL,
  FTS_CANDIDATES_SQL,
  ftsMatchExpression,
  scopeToken,
} from './sqlite-search.js'
import { SqliteStatements } from './sqlite-statements.js'
import type { SqliteVectorTx } from './sqlite-vector-tx.js'

/** Row verbs over one better-sqlite3 connection; statements are prepared once and cached. */
export class SqliteDialectTx implements DialectTx {
  readonly #sql: SqliteStatements
  readonly #merges: SqliteMergeRows
  readonly vectors: SqliteVectorTx
  readonly journal: SqliteJournalTx
  readonly legacy: LegacyRows
  readonly pages: TransferRows

  constructor(db: Database.Database, vectors: SqliteVectorTx) {
    const sql = new SqliteStatements(db)
    this.#sql = sql
    this.#merges = new SqliteMergeRows(this.#sql)
    this.vectors = vectors
    this.journal = new SqliteJournalTx(db)
    const session: RowSession = {
      all: async (text, params) => sql.all(text, ...params),
      run: async (text, params) => void sql.run(text, ...params),
    }
    this.legacy = new LegacyRows(session)
    this.pages = new TransferRows(session)
  }

  #ensureScope(scopeId: string): void {
    this.#sql.run(
      'INSERT INTO scopes (scope_id) VALUES (?) ON CONFLICT (scope_id) DO NOTHING',
      scopeId,
    )
  }

  async getMemory(memoryId: string): Promise<MemoryRow | undefined> {
    return this.#sql.get(`SELECT ${MEMORY_COLUMNS} FROM memories WHERE memory_id = ?`, memoryId)
  }

  async getVersion(memoryId: string, version: number): Promise<VersionRow | undefined> {
    return this.#sql.get(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE memory_id = ? AND version = ?`,
      memoryId,
      version,
    )
  }

  async listVersions(memoryId: string): Promise<VersionRow[]> {
    return this.#sql.all(
      `SELECT ${VERSION_COLUMNS} FROM memory_versions WHERE memory_id = ? ORDER BY version`,
      memoryId,
    )
  }

  async loadCurrent(memoryIds: readonly string[]): Promise<Map<string, CurrentMemory>> {
    const out = new Map<string, CurrentMemory>()
    if (memoryIds.length === 0) return out
    for (const r of this.#sql.all<Record<string, unknown>>(
      CURRENT_SQL,
      JSON.stringify(memoryIds),
    )) {
      const current = splitCurrent(r)
      out.set(current.row.memoryId, current)
    }
    return out
  }

  async findActiveByHash(scopeId: string, contentHash: string): Promise<HeadRow[]> {
    return this.#sql.all(
      `SELECT ${HEAD_COLUMNS} FROM memory_heads WHERE scope_id = ? AND content_hash = ?`,
      scopeId,
      contentHash,
    )
  }

  async missingSources(scopeId: string, sourceIds: readonly string[]): Promise<string[]> {
    return this.#sql
      .all<{ id: string }>(
        `SELECT j.value AS id FROM json_each(?) j WHERE NOT EXISTS (SELECT 1 FROM sources s
       WHERE s.scope_id = ? AND s.source_type = 'content' AND s.source_id = j.value) ORDER BY j.value`,
        JSON.stringify(sourceIds),
        scopeId,
      )
      .map((r) => r.id)
  }

  async listMemories(q: {
    scopeId: string
    states: readonly MemoryState[]
    kinds: readonly string[] | undefined
    after: string | undefined
    limit: number
  }): Promise<MemoryRow[]> {
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories WHERE scope_id = ? AND memory_id > ?
         AND state IN (SELECT value FROM json_each(?))
         AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))
       ORDER BY memory_id LIMIT ?`,
      q.scopeId,
      q.after ?? '',
      JSON.stringify(q.states),
      q.kinds === undefined ? null : 1,
      JSON.stringify(q.kinds ?? []),
      q.limit,
    )
  }

  async recentMemories(q: {
    scopeIds: readonly string[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<MemoryRow[]> {
    return this.#sql.all(
      `SELECT ${MEMORY_COLUMNS} FROM memories
       WHERE scope_id IN (SELECT value FROM json_each(?)) AND state = 'active'
         AND (? IS NULL OR kind IN (SELECT value FROM json_each(?)))
       ORDER BY updated_at DESC, memory_id DESC LIMIT ?`,
      JSON.stringify(q.scopeIds),
      q.kinds === undefined ? null : 1,
      JSON.stringify(q.kinds ?? []),
      q.limit,
    )
  }

  async listChanges(scopeId: string, since: number, limit: number): Promise<ChangeRow[]> {
    return this.#sql.all(
      `SELECT ${CHANGE_COLUMNS} FROM memory_changes WHERE scope_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      scopeId,
      since,
      limit,
    )
  }

  async listChangesOfMemory(memoryId: string): Promise<ChangeRow[]> {
    return this.#sql.all(
      `SELECT ${CHANGE_COLUMNS} FROM memory_changes WHERE memory_id = ? ORDER BY seq`,
      memoryId,
    )
  }

  async headSeq(scopeId: string): Promise<number> {
    return (
      this.#sql.get<{ seq: number }>(
        'SELECT change_seq AS seq FROM scopes WHERE scope_id = ?',
        scopeId,
      )?.seq ?? 0
    )
  }

  async listScopes(after: string, limit: number): Promise<ScopeRow[]> {
    return this.#sql.all(SELECT_SCOPE_PAGE, after, limit)
  }

  async countStates(first: string, last: string): Promise<StateCountRow[]> {
    return this.#sql.all(SELECT_STATE_COUNTS, first, last)
  }

  async searchText(q: {
    scopeId: string
    terms: readonly PlannedTerm[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<TextHit[]> {
    const match = ftsMatchExpression(q.scopeId, q.terms)
    return q.kinds === undefined
      ? this.#sql.all(FTS_CANDIDATES_SQL, match, q.limit)
      : this.#sql.all(FTS_CANDIDATES_BY_KIND_SQL, match, JSON.stringify(q.kinds), q.limit)
  }

  async insertMemory(row: MemoryRow): Promise<void> {
    this.#ensureScope(row.scopeId)
    this.#sql.run(INSERT_MEMORY.sql, ...INSERT_MEMORY.params(row))
  }

  async insertVersion(v: VersionRow): Promise<void> {
    this.#sql.run(INSERT_VERSION.sql, ...INSERT_VERSION.params(v))
  }

  async casMemory(
    next: MemoryRow,
    expected: { version: number; stateVersion: number },
  ): Promise<boolean> {
    const result = this.#sql.run(CAS_MEMORY.sql, ...CAS_MEMORY.params({ next, expected }))
    return result.changes === 1
  }

  async appendChanges(scopeId: string, rows: readonly NewChangeRow[]): Promise<number[]> {
    this.#ensureScope(scopeId)
    const last = this.#sql.get<{ seq: number }>(
      'UPDATE scopes SET change_seq = change_seq + ? WHERE scope_id = ? RETURNING change_seq AS seq',
      rows.length,
      scopeId,
    )?.seq
    if (last === undefined) throw new Error(`scope ${scopeId} has no sequence row`)
    const first = last - rows.length + 1
    rows.forEach((r, i) => {
      this.#sql.run(
        `INSERT INTO memory_changes (scope_id, seq, op, memory_id, from_revision, to_revision, from_state, to_state, reason, operation_id, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      )
    })
    return rows.map((_r, i) => first + i)
  }

  async putHead(h: HeadRow): Promise<void> {
    this.#sql.run(
      `INSERT INTO memory_heads (memory_id, scope_id, version, kind, content_hash, scope_key, searchable_text)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (memory_id) DO UPDATE SET scope_id = excluded.scope_id, version = excluded.version,
         kind = excluded.kind, content_hash = excluded.content_hash, scope_key = excluded.scope_key,
         searchable_text = excluded.searchable_text`,
      h.memoryId,
      h.scopeId,
      h.version,
      h.kind,
      h.contentHash,
      scopeToken(h.scopeId),
      h.searchableText,
    )
  }

  async deleteHead(memoryId: string): Promise<void> {
    await this.vectors.deleteVector(memoryId)
    this.#sql.run('DELETE FROM memory_heads WHERE memory_id = ?', memoryId)
  }

  insertMerge(merge: MergeRecord): Promise<void> {
    return this.#merges.insertMerge(merge)
  }

  effectiveMergeOfResult(memoryId: string): Promise<MergeRecord | undefined> {
    return this.#merges.effectiveMergeOfResult(memoryId)
  }

  mergesOfMemory(memoryId: string): Promise<MergeRecord[]> {
    return this.#merges.mergesOfMemory(memoryId)
  }

  casMergeUndone(mergeId: string, at: string, operationId: string): Promise<boolean> {
    return this.#merges.casMergeUndone(mergeId, at, operationId)
  }

  allMerges(): Promise<MergeRecord[]> {
    return this.#merges.allMerges()
  }

  async getSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
  ): Promise<SourceRow | undefined> {
    return this.#sql.get(
      `SELECT ${SOURCE_COLUMNS} FROM sources WHERE scope_id = ? AND source_type = ? AND source_id = ?`,
      scopeId,
      sourceType,
      sourceId,
    )
  }

  async nextSourcePosition(scopeId: string): Promise<number> {
    this.#ensureScope(scopeId)
    const row = this.#sql.get<{ position: number }>(
      'UPDATE scopes SET source_position = source_position + 1 WHERE scope_id = ? RETURNING source_position AS position',
      scopeId,
    )
    if (row === undefined) throw new Error(`scope ${scopeId} has no journal row`)
    return row.position
  }

  async insertSource(s: SourceRow): Promise<void> {
    this.#sql.run(INSERT_SOURCE.sql, ...INSERT_SOURCE.params(s))
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
    const rows = this.#sql.all<{ scopeId: string; seq: number }>(SELECT_SCOPE_SEQS)
    return new Map(rows.map((r) => [r.scopeId, r.seq]))
  }

  async checkIndexes(): Promise<string[]> {
    const problems: string[] = []
    try {
      this.#sql.db.exec("INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)")
    } catch (err) {
      problems.push(`full-text index does not match the head projection: ${(err as Error).message}`)
    }
    const badKeys = this.#sql
      .all<{ memoryId: string; scopeId: string; scopeKey: string }>(
        'SELECT memory_id AS memoryId, scope_id AS scopeId, scope_key AS scopeKey FROM memory_heads',
      )
      .filter((h) => h.scopeKey !== scopeToken(h.scopeId))
    for (const h of badKeys)
      problems.push(`head ${h.memoryId}: scope token does not match its scope`)
    return problems
  }

  async clearProjections(): Promise<void> {
    // Drop the delete trigger so a damaged index cannot fail the clean-up, then empty both.
    this.vectors.clearAll()
    this.#sql.db.exec('DROP TRIGGER IF EXISTS memory_heads_ad')
    this.#sql.db.exec('DELETE FROM memory_heads')
    this.#sql.db.exec(HEAD_DELETE_TRIGGER)
    this.#sql.db.exec("INSERT INTO memory_fts (memory_fts) VALUES ('delete-all')")
  }
}
