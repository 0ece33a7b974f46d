/*
 * Merge records and their inputs (docs/memory-model.md), written once for every dialect (SQL only, no decision).
 */
import type { MergeRecord } from '../../core/memory-model.js'
import { MERGE_COLUMNS } from './columns.js'
import type { SqlDialect } from './dialect.js'
import type { SqlSession } from './session.js'
import { INSERT_MERGE, UNDO_MERGE } from './statements.js'

type MergeRow = Omit<MergeRecord, 'inputs'>

const MERGE_QUERIES = {
  'effective-result': `SELECT ${MERGE_COLUMNS} FROM merges
    WHERE result_memory_id = ? AND state = 'effective'`,
  'of-memory': `SELECT ${MERGE_COLUMNS} FROM merges WHERE result_memory_id = ?
      OR merge_id IN (SELECT merge_id FROM merge_inputs WHERE memory_id = ?)
    ORDER BY created_at, merge_id`,
  all: `SELECT ${MERGE_COLUMNS} FROM merges ORDER BY merge_id`,
} as const

/** The merge verbs of one transaction. */
export class SqlMerges {
  readonly #sql: SqlSession
  readonly #dialect: SqlDialect

  constructor(sql: SqlSession, dialect: SqlDialect) {
    this.#sql = sql
    this.#dialect = dialect
  }

  /** Inserts a merge record and its inputs (in input order). */
  async insert(m: MergeRecord): Promise<void> {
    await this.#sql.run(INSERT_MERGE.sql, INSERT_MERGE.params(m))
    if (m.inputs.length === 0) return
    await this.#dialect.insertMany(
      this.#sql,
      'INSERT INTO merge_inputs (merge_id, ordinal, memory_id, version)',
      m.inputs.map((input, i) => [m.mergeId, i, input.artifactId, input.revision]),
    )
  }

  /**
   * Merge records with their inputs: the effective merge whose result is `memoryId`, every merge a
   * memory takes part in (oldest first), or all of them (by id).
   */
  async select(
    which: keyof typeof MERGE_QUERIES,
    memoryId: string | undefined,
  ): Promise<MergeRecord[]> {
    const params = which === 'all' ? [] : which === 'of-memory' ? [memoryId, memoryId] : [memoryId]
    return this.withInputs(await this.#sql.all<MergeRow>(MERGE_QUERIES[which], params))
  }

  /** The records with their inputs, read in one statement. */
  async withInputs(rows: readonly MergeRow[]): Promise<MergeRecord[]> {
    if (rows.length === 0) return []
    const { inList } = this.#dialect
    const inputs = await this.#sql.all<{ mergeId: string; artifactId: string; revision: number }>(
      `SELECT merge_id AS mergeId, memory_id AS artifactId, version AS revision FROM merge_inputs
       WHERE merge_id IN ${inList.sql} ORDER BY merge_id, ordinal`,
      [inList.bind(rows.map((r) => r.mergeId))],
    )
    const byMerge = new Map<string, { artifactId: string; revision: number }[]>()
    for (const { mergeId, ...ref } of inputs) {
      const list = byMerge.get(mergeId)
      if (list === undefined) byMerge.set(mergeId, [ref])
      else list.push(ref)
    }
    return rows.map((r) => ({ ...r, inputs: byMerge.get(r.mergeId) ?? [] }))
  }

  /** Marks an effective merge undone; false when it was not effective any more. */
  async undo(mergeId: string, at: string, operationId: string): Promise<boolean> {
    const result = await this.#sql.run(
      UNDO_MERGE.sql,
      UNDO_MERGE.params({ mergeId, at, operationId }),
    )
    return result.changes === 1
  }
}
