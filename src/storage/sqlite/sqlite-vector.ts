import type Database from 'better-sqlite3'
import * as sqliteVec from 'sqlite-vec'

/**
 * The SQLite adapter's vector index, behind one small interface (SQL only, no decision) so that
 * SQLite's Vec1 extension can replace sqlite-vec later without touching anything else. Rows are
 * keyed by the head's `projection_id`; distances are L2 between unit vectors. Metadata (memory,
 * version, hashes) lives in a plain table next to it, written by `SqliteVectorTx`.
 */
export interface SqliteVectorIndex {
  /** Extension and version, e.g. `sqlite-vec v0.1.9`. */
  readonly name: string
  /** The index table, for the adapter's joins by rowid (= projection id); column `embedding`. */
  readonly table: string
  /** Creates the index for `dimension` when missing; a problem when an existing one differs. */
  ensure(dimension: number): string | null
  /** True once {@link ensure} succeeded (the table exists with the right dimension). */
  readonly ready: boolean
  put(projectionId: number, scopeId: string, kind: string, vector: readonly number[]): void
  delete(projectionId: number): void
  /** Empties the index; it is recreated with the current layout (rebuild). */
  deleteAll(): void
  /**
   * The KNN statement as SQL: the `k` nearest rows of the scope (optionally of these kinds), for
   * the caller to join in one statement. Parameters: vector (float32 blob), k, scope id[, kinds as
   * a JSON array]; columns `projectionId`, `distance`.
   */
  knnSql(withKinds: boolean): string
  /** Every projection id in the index (verify). */
  projectionIds(): number[]
}

const TABLE = 'memory_vec'
/**
 * Rows per vec0 chunk. Every scope (partition) holds at least one chunk, allocated whole
 * (`chunk_size` × dimension × 4 bytes): sqlite-vec's default of 1,024 costs 1.5 MB per scope at
 * 384 dimensions even for one memory. At 256 a KNN over 10k–100k rows is as fast as with 1,024
 * (docs/benchmarks.md) and a small scope costs 384 KB.
 */
const CHUNK_SIZE = 256

/**
 * sqlite-vec (`vec0`): brute-force KNN, partitioned by scope so a search scans only its scope.
 * Rowids must be BigInt; there is no INSERT OR REPLACE (delete, then insert); KNN is
 * `embedding MATCH ? AND k = ?`.
 */
class SqliteVecIndex implements SqliteVectorIndex {
  readonly name: string
  readonly table = TABLE
  readonly #db: Database.Database
  readonly #statements = new Map<string, Database.Statement>()
  ready = false
  #dimension: number | undefined

  constructor(db: Database.Database, version: string) {
    this.#db = db
    this.name = `sqlite-vec ${version}`
  }

  #stmt(sql: string): Database.Statement {
    let stmt = this.#statements.get(sql)
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql)
      this.#statements.set(sql, stmt)
    }
    return stmt
  }

  ensure(dimension: number): string | null {
    const row = this.#db
      .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(TABLE) as { sql: string } | undefined
    if (row === undefined) {
      this.#create(dimension)
    } else {
      const existing = Number(/float\[(\d+)\]/.exec(row.sql)?.[1])
      if (existing !== dimension) {
        this.ready = false
        return `vector index has dimension ${existing}, the profile ${dimension}`
      }
      this.#dimension = dimension
    }
    this.ready = true
    return null
  }

  #create(dimension: number): void {
    this.#db.exec(
      `CREATE VIRTUAL TABLE ${TABLE} USING vec0(scope_id text partition key, kind text,
        embedding float[${dimension}], chunk_size=${CHUNK_SIZE})`,
    )
    this.#dimension = dimension
  }

  put(projectionId: number, scopeId: string, kind: string, vector: readonly number[]): void {
    this.#stmt(`INSERT INTO ${TABLE} (rowid, scope_id, kind, embedding) VALUES (?, ?, ?, ?)`).run(
      BigInt(projectionId),
      scopeId,
      kind,
      new Float32Array(vector),
    )
  }

  delete(projectionId: number): void {
    this.#stmt(`DELETE FROM ${TABLE} WHERE rowid = ?`).run(BigInt(projectionId))
  }

  deleteAll(): void {
    const dimension = this.#dimension
    if (dimension === undefined) throw new Error('vector index used before ensure()')
    // Dropped and created again rather than emptied: a rebuild also brings an index created with
    // another layout (e.g. an older chunk size) to the current one. Statements cached for the
    // dropped table are re-prepared.
    this.#statements.clear()
    this.#db.exec(`DROP TABLE ${TABLE}`)
    this.#create(dimension)
  }

  knnSql(withKinds: boolean): string {
    return `SELECT rowid AS projectionId, distance FROM ${TABLE}
      WHERE embedding MATCH ? AND k = ? AND scope_id = ?${withKinds ? ' AND kind IN (SELECT value FROM json_each(?))' : ''}`
  }

  projectionIds(): number[] {
    return (this.#db.prepare(`SELECT rowid AS id FROM ${TABLE}`).all() as { id: number }[]).map(
      (r) => r.id,
    )
  }
}

/**
 * Loads sqlite-vec into the connection and proves it works with a minimal insert/search/delete
 * probe on a temporary table (never trust that an extension file exists).
 * `path` overrides the extension file; `false` skips loading. Never throws: a failure is returned
 * as the reason the backend has no vector capability.
 */
export function loadSqliteVectorIndex(
  db: Database.Database,
  path?: string | false,
): { index: SqliteVectorIndex | undefined; problem: string | null } {
  if (path === false) return { index: undefined, problem: 'vector extension disabled' }
  try {
    if (path === undefined) sqliteVec.load(db)
    else db.loadExtension(path)
    const { version } = db.prepare('SELECT vec_version() AS version').get() as { version: string }
    db.exec('CREATE VIRTUAL TABLE temp.powercontext_vec_probe USING vec0(embedding float[2])')
    try {
      db.prepare('INSERT INTO temp.powercontext_vec_probe (rowid, embedding) VALUES (?, ?)').run(
        1n,
        new Float32Array([1, 0]),
      )
      const hit = db
        .prepare(
          'SELECT rowid AS id, distance FROM temp.powercontext_vec_probe WHERE embedding MATCH ? AND k = 1',
        )
        .get(new Float32Array([0, 1])) as { id: number; distance: number } | undefined
      if (hit?.id !== 1 || Math.abs(hit.distance - Math.SQRT2) > 1e-6) {
        throw new Error(`probe search returned ${JSON.stringify(hit)}`)
      }
      db.prepare('DELETE FROM temp.powercontext_vec_probe WHERE rowid = ?').run(1n)
    } finally {
      db.exec('DROP TABLE temp.powercontext_vec_probe')
    }
    return { index: new SqliteVecIndex(db, version), problem: null }
  } catch (err) {
    return { index: undefined, problem: `vector extension unavailable: ${(err as Error).message}` }
  }
}
