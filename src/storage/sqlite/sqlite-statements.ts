import type Database from 'better-sqlite3'

/**
 * Prepared statements of one connection, prepared once per SQL text and reused by every verb
 * group (memory rows, journal, vectors) of the adapter.
 */
export class SqliteStatements {
  readonly db: Database.Database
  readonly #cache = new Map<string, Database.Statement>()

  constructor(db: Database.Database) {
    this.db = db
  }

  /** The cached prepared statement for `sql`. */
  stmt(sql: string): Database.Statement {
    let stmt = this.#cache.get(sql)
    if (stmt === undefined) {
      stmt = this.db.prepare(sql)
      this.#cache.set(sql, stmt)
    }
    return stmt
  }

  all<T>(sql: string, ...params: unknown[]): T[] {
    return this.stmt(sql).all(...params) as T[]
  }

  get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.stmt(sql).get(...params) as T | undefined
  }

  run(sql: string, ...params: unknown[]): Database.RunResult {
    return this.stmt(sql).run(...params)
  }
}
