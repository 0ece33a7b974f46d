import type { MergeRecord } from '../../core/memory-model.js'
import { MERGE_COLUMNS } from '../sql/columns.js'
import { INSERT_MERGE, UNDO_MERGE } from '../sql/statements.js'
import type { SqliteStatements } from './sqlite-statements.js'

type MergeRow = Omit<MergeRecord, 'inputs'>

/** Merge records and their inputs (DESIGN §2) on SQLite. */
export class SqliteMergeRows {
  readonly #sql: SqliteStatements

  constructor(sql: SqliteStatements) {
    this.#sql = sql
  }

  async insertMerge(m: MergeRecord): Promise<void> {
    this.#sql.run(INSERT_MERGE.sql, ...INSERT_MERGE.params(m))
    m.inputs.forEach((input, i) => {
      this.#sql.run(
        'INSERT INTO merge_inputs (merge_id, ordinal, memory_id, version) VALUES (?, ?, ?, ?)',
        m.mergeId,
        i,
        input.artifactId,
        input.revision,
      )
    })
  }

  #withInputs(rows: MergeRow[]): MergeRecord[] {
    return rows.map((r) => ({
      ...r,
      inputs: this.#sql.all<{ artifactId: string; revision: number }>(
        'SELECT memory_id AS artifactId, version AS revision FROM merge_inputs WHERE merge_id = ? ORDER BY ordinal',
        r.mergeId,
      ),
    }))
  }

  async effectiveMergeOfResult(memoryId: string): Promise<MergeRecord | undefined> {
    return this.#withInputs(
      this.#sql.all(
        `SELECT ${MERGE_COLUMNS} FROM merges WHERE result_memory_id = ? AND state = 'effective'`,
        memoryId,
      ),
    )[0]
  }

  async mergesOfMemory(memoryId: string): Promise<MergeRecord[]> {
    return this.#withInputs(
      this.#sql.all(
        `SELECT ${MERGE_COLUMNS} FROM merges WHERE result_memory_id = ?
           OR merge_id IN (SELECT merge_id FROM merge_inputs WHERE memory_id = ?)
         ORDER BY created_at, merge_id`,
        memoryId,
        memoryId,
      ),
    )
  }

  async casMergeUndone(mergeId: string, at: string, operationId: string): Promise<boolean> {
    const result = this.#sql.run(UNDO_MERGE.sql, ...UNDO_MERGE.params({ mergeId, at, operationId }))
    return result.changes === 1
  }

  async allMerges(): Promise<MergeRecord[]> {
    return this.#withInputs(this.#sql.all(`SELECT ${MERGE_COLUMNS} FROM merges ORDER BY merge_id`))
  }
}
