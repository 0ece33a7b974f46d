/*
 * The SQLite dialect of the shared SQL verbs: JSON-array `IN` lists, `ON CONFLICT`
 * upserts, `UPDATE … RETURNING` counters, FTS5 as the full-text dialect, sqlite-vec rows in a
 * table beside the heads as the vector dialect.
 */
import type { TextHit } from '../spi/rows.js'
import type { FullTextDialect, SqlDialect } from '../sql/dialect.js'
import { bumpWithReturning, placeholders } from '../sql/dialect.js'
import type { SqlSession } from '../sql/session.js'
import { HEAD_DELETE_TRIGGER } from './sqlite-schema.js'
import {
  FTS_CANDIDATES_BY_KIND_SQL,
  FTS_CANDIDATES_SQL,
  ftsMatchExpression,
  ONE_SCOPE_SQL,
  scopeToken,
} from './sqlite-search.js'
import type { SqliteStatements } from './sqlite-session.js'
import { SqliteTextStatistics } from './sqlite-text-stats.js'
import type { SqliteVectorTx } from './sqlite-vector-tx.js'

/** True for a primary or unique key violation (a concurrent writer won). */
export function isSqliteUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/**
 * FTS5 over the heads (`memory_fts`, kept by triggers): each head carries its scope token
 * (`scope_key`) so MATCH filters the scope; BM25 statistics from FTS5's own records
 * (`sqlite-text-stats.ts`); checks run FTS5's own integrity check.
 */
function fts5(sql: SqliteStatements, vectors: SqliteVectorTx): FullTextDialect {
  const statistics = new SqliteTextStatistics(sql)
  return {
    headColumns: ['scope_key'],
    headValues: (h) => [scopeToken(h.scopeId)],
    async searchText(_s, q): Promise<TextHit[]> {
      const whole = sql.get<{ whole: number }>(ONE_SCOPE_SQL, q.scopeId, q.scopeId)?.whole === 1
      const match = ftsMatchExpression(q.scopeId, q.terms, whole)
      return q.kinds === undefined
        ? sql.all(FTS_CANDIDATES_SQL, match, q.limit)
        : sql.all(FTS_CANDIDATES_BY_KIND_SQL, match, JSON.stringify(q.kinds), q.limit)
    },
    statistics: async (_s, terms) => statistics.read(terms),
    async checkIndexes(): Promise<string[]> {
      const problems: string[] = []
      try {
        sql.db.exec("INSERT INTO memory_fts (memory_fts, rank) VALUES ('integrity-check', 1)")
      } catch (err) {
        problems.push(
          `full-text index does not match the head projection: ${(err as Error).message}`,
        )
      }
      const badKeys = sql
        .all<{ memoryId: string; scopeId: string; scopeKey: string }>(
          'SELECT memory_id AS memoryId, scope_id AS scopeId, scope_key AS scopeKey FROM memory_heads',
        )
        .filter((h) => h.scopeKey !== scopeToken(h.scopeId))
      for (const h of badKeys)
        problems.push(`head ${h.memoryId}: scope token does not match its scope`)
      return problems
    },
    async clearProjections(): Promise<void> {
      // Drop the delete trigger so a damaged index cannot fail the clean-up, then empty both.
      vectors.clearAll()
      sql.db.exec('DROP TRIGGER IF EXISTS memory_heads_ad')
      sql.db.exec('DELETE FROM memory_heads')
      sql.db.exec(HEAD_DELETE_TRIGGER)
      sql.db.exec("INSERT INTO memory_fts (memory_fts) VALUES ('delete-all')")
    },
  }
}

/** The dialect of one connection (its statements and its vector verbs). */
export function sqliteDialect(sql: SqliteStatements, vectors: SqliteVectorTx): SqlDialect {
  return {
    inList: { sql: '(SELECT value FROM json_each(?))', bind: (values) => JSON.stringify(values) },
    asBytes: (column) => `CAST(${column} AS BLOB)`,
    upsert: (conflict, update) =>
      `ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ignoreDuplicate: (conflict) => `ON CONFLICT (${conflict.join(', ')}) DO NOTHING`,
    bumpCounter: bumpWithReturning,
    // One prepared single-row statement per row: cached once, as fast as a multi-row VALUES here.
    async insertMany(session: SqlSession, prefix, rows): Promise<void> {
      const width = rows[0]?.length ?? 0
      const text = `${prefix} VALUES (${placeholders(width)})`
      for (const row of rows) await session.run(text, row)
    },
    isUniqueViolation: isSqliteUniqueViolation,
    fullText: fts5(sql, vectors),
    vectors: () => vectors,
    vectorsInHeadRow: false,
  }
}
