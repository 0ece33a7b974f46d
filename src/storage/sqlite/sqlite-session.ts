import type Database from 'better-sqlite3'

import type { SqlSession } from '../sql/session.js'

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

/** The shared SQL verbs' session over the cached statements (better-sqlite3 is synchronous). */
export function sqliteSession(sql: SqliteStatements): SqlSession {
  return {
    all: async <T>(text: string, params: readonly unknown[] = []) => sql.all<T>(text, ...params),
    get: async <T>(text: string, params: readonly unknown[] = []) => sql.get<T>(text, ...params),
    run: async (text: string, params: readonly unknown[] = []) => ({
      changes: sql.run(text, ...params).changes,
    }),
  }
}
