/*
 * Repair of the FULLTEXT index after a database crash. InnoDB keeps FULLTEXT entries
 * of recent commits in a memory cache and, after a crash, re-reads only rows whose document id is
 * above the last synced id. A transaction gets its document id at its statement but enters the
 * cache at its commit, so a sync between the two records the id as synced while its words are in
 * neither the cache nor the index tables: after `kill -9` such a committed head is present,
 * current and unsearchable (observed: 1 of 1,485 heads). Nothing in the schema can prevent that,
 * so the index is checked and those rows written again: each missed row is emptied, then rewritten
 * (two transactions), which gives it a new document id and puts its words into the cache.
 */
import type { SqlSession } from '../sql/session.js'
import { FTS_EVERY_HEAD_TOKEN, FULLTEXT_TABLE } from './mysql-search.js'

/** Rows rewritten per statement. */
const REPAIR_BATCH = 500

/** How the problem of an index that misses heads starts (readiness and verify report it). */
export const FULLTEXT_GAP_PREFIX = 'full-text index finds '

/** Heads the FULLTEXT index does not find (their marker token is missing from the index). */
export async function fulltextMisses(sql: SqlSession): Promise<string[]> {
  const rows = await sql.all<{ memoryId: string }>(
    `SELECT h.memory_id AS memoryId FROM memory_heads h
     WHERE h.memory_id NOT IN (
       SELECT f.memory_id FROM ${FULLTEXT_TABLE} f
       WHERE MATCH (f.fts_text) AGAINST (? IN BOOLEAN MODE))
     ORDER BY h.memory_id`,
    [FTS_EVERY_HEAD_TOKEN],
  )
  return rows.map((r) => r.memoryId)
}

/**
 * Whether the FULLTEXT index finds every head: the hits of the marker token every head's text
 * carries, against the head count. Null when complete, else the problem.
 */
export async function fulltextIndexGap(sql: SqlSession): Promise<string | null> {
  const counts = await sql.get<{ total: number; indexed: number }>(
    `SELECT (SELECT COUNT(*) FROM memory_heads) AS total,
       (SELECT COUNT(*) FROM ${FULLTEXT_TABLE} f JOIN memory_heads h ON h.memory_id = f.memory_id
        WHERE MATCH (f.fts_text) AGAINST (? IN BOOLEAN MODE)) AS indexed`,
    [FTS_EVERY_HEAD_TOKEN],
  )
  if (counts === undefined || Number(counts.total) === Number(counts.indexed)) return null
  return `${FULLTEXT_GAP_PREFIX}${counts.indexed} of ${counts.total} head rows (run rebuild)`
}

/**
 * First step of a rewrite (its own transaction): empties the index rows of `memoryIds`. Emptying
 * and refilling a row in ONE transaction leaves it unsearchable (observed on MariaDB 10.11), so
 * the two steps commit separately; in between the row is unsearchable, as it already was.
 */
export async function emptyFulltextRows(
  sql: SqlSession,
  memoryIds: readonly string[],
): Promise<void> {
  for (let i = 0; i < memoryIds.length; i += REPAIR_BATCH) {
    const batch = memoryIds.slice(i, i + REPAIR_BATCH)
    await sql.run(`UPDATE ${FULLTEXT_TABLE} SET fts_text = '' WHERE memory_id IN (?)`, [batch])
  }
}

/**
 * Second step (its own transaction): sets the index rows of `memoryIds` to their heads' encoded
 * text again (a row that is missing is created), which gives each a fresh document id. A memory
 * whose head went away in between keeps its emptied row, which is right.
 * @returns the number of heads whose rows were written.
 */
export async function refillFulltextRows(
  sql: SqlSession,
  memoryIds: readonly string[],
): Promise<number> {
  let written = 0
  for (let i = 0; i < memoryIds.length; i += REPAIR_BATCH) {
    const batch = memoryIds.slice(i, i + REPAIR_BATCH)
    const heads = await sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM memory_heads WHERE memory_id IN (?)',
      [batch],
    )
    await sql.run(
      `INSERT INTO ${FULLTEXT_TABLE} (memory_id, fts_text)
       SELECT memory_id, fts_text FROM memory_heads WHERE memory_id IN (?)
       ON DUPLICATE KEY UPDATE fts_text = VALUES(fts_text)`,
      [batch],
    )
    written += Number(heads?.n ?? 0)
  }
  return written
}
