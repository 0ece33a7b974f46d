/*
 * Statements of the merge verbs and of the FULLTEXT check, kept apart from `MysqlDialectTx` (which
 * delegates to them) so that each file stays small. SQL only (STYLE R3).
 */
import type { MergeRecord } from '../../core/memory-model.js'
import { MERGE_COLUMNS } from '../sql/columns.js'
import { INSERT_MERGE, UNDO_MERGE } from '../sql/statements.js'
import { encodeFtsText, FTS_EVERY_HEAD_TOKEN } from './mysql-search.js'
import type { SqlSession } from './mysql-session.js'

type MergeRow = Omit<MergeRecord, 'inputs'>

/** Heads read per page while checking the FULLTEXT column of every head. */
const CHECK_PAGE = 1000

/** Inserts a merge record and its inputs (in input order). */
export async function insertMergeRows(sql: SqlSession, m: MergeRecord): Promise<void> {
  await sql.run(INSERT_MERGE.sql, INSERT_MERGE.params(m))
  if (m.inputs.length === 0) return
  await sql.run('INSERT INTO merge_inputs (merge_id, ordinal, memory_id, version) VALUES ?', [
    m.inputs.map((input, i) => [m.mergeId, i, input.artifactId, input.revision]),
  ])
}

async function withInputs(sql: SqlSession, rows: MergeRow[]): Promise<MergeRecord[]> {
  if (rows.length === 0) return []
  const inputs = await sql.all<{ mergeId: string; artifactId: string; revision: number }>(
    `SELECT merge_id AS mergeId, memory_id AS artifactId, version AS revision FROM merge_inputs
     WHERE merge_id IN (?) ORDER BY merge_id, ordinal`,
    [rows.map((r) => r.mergeId)],
  )
  const byMerge = new Map<string, { artifactId: string; revision: number }[]>()
  for (const { mergeId, ...ref } of inputs) {
    const list = byMerge.get(mergeId)
    if (list === undefined) byMerge.set(mergeId, [ref])
    else list.push(ref)
  }
  return rows.map((r) => ({ ...r, inputs: byMerge.get(r.mergeId) ?? [] }))
}

const MERGE_QUERIES = {
  'effective-result': `SELECT ${MERGE_COLUMNS} FROM merges
    WHERE result_memory_id = ? AND state = 'effective'`,
  'of-memory': `SELECT ${MERGE_COLUMNS} FROM merges WHERE result_memory_id = ?
      OR merge_id IN (SELECT merge_id FROM merge_inputs WHERE memory_id = ?)
    ORDER BY created_at, merge_id`,
  all: `SELECT ${MERGE_COLUMNS} FROM merges ORDER BY merge_id`,
} as const

/**
 * Merge records with their inputs: the effective merge whose result is `memoryId`, every merge a
 * memory takes part in (oldest first), or all of them (by id).
 */
export async function selectMerges(
  sql: SqlSession,
  which: keyof typeof MERGE_QUERIES,
  memoryId: string | undefined,
): Promise<MergeRecord[]> {
  const params = which === 'all' ? [] : which === 'of-memory' ? [memoryId, memoryId] : [memoryId]
  return withInputs(sql, await sql.all<MergeRow>(MERGE_QUERIES[which], params))
}

/** Marks an effective merge undone; false when it was not effective any more. */
export async function casMergeUndone(
  sql: SqlSession,
  mergeId: string,
  at: string,
  operationId: string,
): Promise<boolean> {
  const result = await sql.run(UNDO_MERGE.sql, UNDO_MERGE.params({ mergeId, at, operationId }))
  return result.affectedRows === 1
}

/**
 * FULLTEXT consistency: every head's encoded column equals the encoding of its Analyzer v1 text,
 * and the index finds every head (the hits of the marker token every head carries equal the row
 * count). The index part is skipped when the startup probe left full-text search unavailable
 * (that is a missing capability, reported by readiness, not damage).
 */
export async function checkFulltext(sql: SqlSession, ftsProblem: string | null): Promise<string[]> {
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
  if (ftsProblem !== null) return problems
  const counts = await sql.get<{ total: number; indexed: number }>(
    `SELECT (SELECT COUNT(*) FROM memory_heads) AS total,
       (SELECT COUNT(*) FROM memory_heads WHERE MATCH (fts_text) AGAINST (? IN BOOLEAN MODE)) AS indexed`,
    [FTS_EVERY_HEAD_TOKEN],
  )
  if (counts !== undefined && counts.total !== counts.indexed) {
    problems.push(
      `full-text index finds ${counts.indexed} of ${counts.total} head rows (run rebuild)`,
    )
  }
  return problems
}
