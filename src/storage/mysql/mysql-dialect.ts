/*
 * The MySQL-family dialect of the shared SQL verbs: mysql2's `IN (?)` lists and
 * `VALUES ?` rows, `ON DUPLICATE KEY UPDATE` upserts, counters read `FOR UPDATE`, InnoDB/OceanBase
 * FULLTEXT over an encoded column as the full-text dialect, and (OceanBase) the vector in the head
 * row as the vector dialect. What differs between OceanBase and MariaDB is in `MYSQL_DIALECTS`.
 */
import { PowerContextError } from '../../core/errors.js'
import type { TextHit } from '../spi/rows.js'
import type { FullTextDialect, SqlDialect } from '../sql/dialect.js'
import { bumpWithLockedRead } from '../sql/dialect.js'
import type { SqlSession } from '../sql/session.js'
import { ER_DUP_ENTRY } from './mysql-errors.js'
import { fulltextIndexGap } from './mysql-fts-repair.js'
import { encodeFtsText, ftsBooleanQuery, FULLTEXT_TABLE, searchTextSql } from './mysql-search.js'
import type { VectorColumnState } from './mysql-vector-tx.js'
import { MysqlVectorTx } from './mysql-vector-tx.js'

/** Heads read per page while checking the FULLTEXT column of every head. */
const CHECK_PAGE = 1000

/**
 * FULLTEXT consistency: every head's encoded column equals the encoding of its Analyzer v1 text,
 * and the index finds every head (the hits of the marker token every head carries equal the row
 * count). The index part is skipped when the startup probe left full-text search unavailable
 * (that is a missing capability, reported by readiness, not damage).
 */
async function checkFulltext(sql: SqlSession, ftsProblem: string | null): Promise<string[]> {
  const problems: string[] = []
  for (let after = 0; ;) {
    const page = await sql.all<{
      id: number
      memoryId: string
      searchableText: string
      ftsText: string
    }>(
      `SELECT projection_id AS id, memory_id AS memoryId, searchable_text AS searchableText,
         fts_text AS ftsText FROM memory_heads WHERE projection_id > ? ORDER BY projection_id LIMIT ?`,
      [after, CHECK_PAGE],
    )
    for (const h of page) {
      if (h.ftsText !== encodeFtsText(h.searchableText)) {
        problems.push(`head ${h.memoryId}: full-text column does not match its searchable text`)
      }
    }
    const last = page.at(-1)
    if (last === undefined) break
    after = last.id
  }
  const stale = await sql.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM memory_heads h LEFT JOIN ${FULLTEXT_TABLE} f ON f.memory_id = h.memory_id
     WHERE f.memory_id IS NULL OR f.fts_text <> h.fts_text`,
  )
  if (Number(stale?.n ?? 0) > 0) {
    problems.push(`${stale?.n} head rows have no matching full-text row (run rebuild)`)
  }
  const orphans = await sql.get<{ n: number }>(
    `SELECT COUNT(*) AS n FROM ${FULLTEXT_TABLE} f LEFT JOIN memory_heads h ON h.memory_id = f.memory_id
     WHERE h.memory_id IS NULL AND f.fts_text <> ''`,
  )
  if (Number(orphans?.n ?? 0) > 0) {
    problems.push(`${orphans?.n} full-text rows belong to no head (run rebuild)`)
  }
  if (ftsProblem !== null) return problems
  const missing = await fulltextIndexGap(sql)
  if (missing !== null) problems.push(missing)
  return problems
}

/**
 * FULLTEXT in BOOLEAN MODE over `memory_heads.fts_text` (the encoded Analyzer v1 tokens).
 * `ftsProblem`: why the startup probe found no usable index, or null.
 */
function fulltext(ftsProblem: string | null): FullTextDialect {
  return {
    headColumns: ['fts_text'],
    headValues: (h) => [encodeFtsText(h.searchableText)],
    /**
     * FULLTEXT candidates: the encoded terms OR-ed, the scope (and kinds) filtered in SQL, best
     * relevance first, then memory id.
     * @throws PowerContextError `capability_not_supported` when the startup probe found no usable
     *   FULLTEXT index (never an empty result instead).
     */
    async searchText(sql, q): Promise<TextHit[]> {
      if (ftsProblem !== null) {
        throw new PowerContextError(
          'capability_not_supported',
          `full-text search is unavailable: ${ftsProblem}`,
          { capability: 'fts' },
        )
      }
      if (q.terms.length === 0 || q.kinds?.length === 0) return []
      const query = ftsBooleanQuery(q.terms)
      const perTerm = q.terms.map((t) => ftsBooleanQuery([t]))
      const kinds = q.kinds === undefined ? [] : [q.kinds]
      const rows = await sql.all<TextHit>(searchTextSql(q.kinds !== undefined, q.terms.length), [
        ...perTerm,
        query,
        query,
        q.scopeId,
        ...kinds,
        q.limit,
      ])
      return rows.map((r) => ({
        memoryId: r.memoryId,
        version: r.version,
        contentHash: r.contentHash,
        searchableText: r.searchableText,
      }))
    },
    // Index rows are rewritten in place and emptied, never deleted (see FULLTEXT_INDEX).
    async putIndexRow(sql, head): Promise<void> {
      await sql.run(
        `INSERT INTO ${FULLTEXT_TABLE} (memory_id, fts_text) VALUES (?, ?)
         ON DUPLICATE KEY UPDATE fts_text = VALUES(fts_text)`,
        [head.memoryId, encodeFtsText(head.searchableText)],
      )
    },
    async dropIndexRow(sql, memoryId): Promise<void> {
      await sql.run(`UPDATE ${FULLTEXT_TABLE} SET fts_text = '' WHERE memory_id = ?`, [memoryId])
    },
    checkIndexes: (sql) => checkFulltext(sql, ftsProblem),
    async clearProjections(sql): Promise<void> {
      // DELETE, not TRUNCATE: TRUNCATE is DDL and would commit the rebuild half way.
      await sql.run('DELETE FROM memory_heads')
      await sql.run(`UPDATE ${FULLTEXT_TABLE} SET fts_text = '' WHERE fts_text <> ''`)
    },
  }
}

/** The dialect of one backend: what its startup probes found about FULLTEXT and vectors. */
export function mysqlSqlDialect(
  ftsProblem: string | null,
  vectorState: VectorColumnState,
): SqlDialect {
  return {
    inList: { sql: '(?)', bind: (values) => values },
    asBytes: (column) => `CAST(${column} AS BINARY)`,
    upsert: (_conflict, update) =>
      `ON DUPLICATE KEY UPDATE ${update.map((c) => `${c} = VALUES(${c})`).join(', ')}`,
    ignoreDuplicate: (conflict) => `ON DUPLICATE KEY UPDATE ${conflict[0]} = ${conflict[0]}`,
    bumpCounter: bumpWithLockedRead,
    async insertMany(session: SqlSession, prefix, rows): Promise<void> {
      await session.run(`${prefix} VALUES ?`, [rows])
    },
    isUniqueViolation: (err) => (err as { errno?: unknown } | null)?.errno === ER_DUP_ENTRY,
    fullText: fulltext(ftsProblem),
    // The vector, when the dialect has one, lives in the head row: deleting the head deletes it.
    vectors: (session) => new MysqlVectorTx(session, vectorState),
    vectorsInHeadRow: true,
  }
}
