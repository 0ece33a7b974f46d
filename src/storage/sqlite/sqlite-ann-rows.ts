import type { AnnReader } from './sqlite-ann-types.js'
import type { AnnStamp } from './sqlite-ann-types.js'
import type { AnnVectorRow } from './sqlite-ann-types.js'
import type { SqliteStatements } from './sqlite-session.js'

/** Log entries kept: a graph further behind than this is rebuilt instead of caught up. */
const VECTOR_LOG_KEEP = 200_000
/** The log is pruned when its sequence reaches a multiple of this. */
const VECTOR_LOG_PRUNE_EVERY = 1_024

/**
 * Appends one `memory_vector_log` entry (inside the caller's write transaction): the memory's
 * vector row changed. Every so often, entries older than the last {@link VECTOR_LOG_KEEP} go.
 */
export function logVectorChange(sql: SqliteStatements, scopeId: string, memoryId: string): void {
  const seq = Number(
    sql
      .stmt('INSERT INTO memory_vector_log (scope_id, memory_id) VALUES (?, ?)')
      .run(scopeId, memoryId).lastInsertRowid,
  )
  if (seq % VECTOR_LOG_PRUNE_EVERY === 0) {
    sql.stmt('DELETE FROM memory_vector_log WHERE seq <= ?').run(seq - VECTOR_LOG_KEEP)
  }
}

/**
 * The reads of the approximate-search graphs (`sqlite-ann-search.ts`, `sqlite-ann-lifecycle.ts`)
 * over one connection: the vector metadata, the vector index table (`table`, joined by rowid =
 * projection id) and the log.
 */
export class SqliteAnnReader implements AnnReader {
  readonly #sql: SqliteStatements
  readonly #table: string

  constructor(sql: SqliteStatements, table: string) {
    this.#sql = sql
    this.#table = table
  }

  stamp(): AnnStamp {
    // `main.` because the vector extension's probe leaves a temp.sqlite_sequence that would shadow it.
    return this.#sql
      .stmt(
        `SELECT coalesce((SELECT vector_epoch FROM embedding_profile WHERE id = 1), 0) AS epoch,
           coalesce((SELECT seq FROM main.sqlite_sequence WHERE name = 'memory_vector_log'), 0) AS logSeq,
           (SELECT min(seq) FROM memory_vector_log) AS minLogSeq`,
      )
      .get() as AnnStamp
  }

  vectorCount(scopeId: string): number {
    return (
      this.#sql
        .stmt('SELECT count(*) AS n FROM memory_vectors WHERE scope_id = ?')
        .get(scopeId) as {
        n: number
      }
    ).n
  }

  page(scopeId: string, after: number, limit: number): AnnVectorRow[] {
    // CROSS JOIN keeps the order: metadata first, then one index look-up by rowid per row.
    return this.#sql
      .stmt(
        `SELECT m.projection_id AS projectionId, m.memory_id AS memoryId, v.embedding
         FROM memory_vectors m CROSS JOIN ${this.#table} v ON v.rowid = m.projection_id
         WHERE m.scope_id = ? AND m.projection_id > ? ORDER BY m.projection_id LIMIT ?`,
      )
      .all(scopeId, after, limit) as AnnVectorRow[]
  }

  logAfter(scopeId: string, seq: number, limit: number): { seq: number; memoryId: string }[] {
    return this.#sql
      .stmt(
        `SELECT seq, memory_id AS memoryId FROM memory_vector_log
         WHERE scope_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(scopeId, seq, limit) as { seq: number; memoryId: string }[]
  }

  databaseId(): string {
    return (
      this.#sql.stmt('SELECT database_id AS id FROM database_identity WHERE id = 1').get() as {
        id: string
      }
    ).id
  }

  logMemoryAt(seq: number): string | undefined {
    const row = this.#sql
      .stmt('SELECT memory_id AS memoryId FROM memory_vector_log WHERE seq = ?')
      .get(seq) as { memoryId: string } | undefined
    return row?.memoryId
  }

  vectorsOf(memoryIds: readonly string[]): AnnVectorRow[] {
    if (memoryIds.length === 0) return []
    return this.#sql
      .stmt(
        `SELECT m.projection_id AS projectionId, m.memory_id AS memoryId, v.embedding
         FROM json_each(?) j CROSS JOIN memory_vectors m ON m.memory_id = j.value
         CROSS JOIN ${this.#table} v ON v.rowid = m.projection_id`,
      )
      .all(JSON.stringify(memoryIds)) as AnnVectorRow[]
  }
}
