import type { PoolConnection, ResultSetHeader } from 'mysql2/promise'

import type { SqlRunResult, SqlSession } from '../sql/session.js'

/**
 * The shared SQL verbs' session over one pooled connection. Values are bound with mysql2's
 * escaping (`?`; an array expands to a list for `IN (?)`, nested arrays to rows for `VALUES ?`);
 * no value is ever spliced into SQL text.
 */
export class MysqlSession implements SqlSession {
  readonly #conn: PoolConnection
  readonly #rewrite: ((sql: string) => string) | undefined

  /** `rewrite` is a test hook (see `MysqlBackendOptions.rewriteSql`). */
  constructor(conn: PoolConnection, rewrite?: (sql: string) => string) {
    this.#conn = conn
    this.#rewrite = rewrite
  }

  #text(sql: string): string {
    return this.#rewrite === undefined ? sql : this.#rewrite(sql)
  }

  /** Every row of a query. */
  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const [rows] = await this.#conn.query(this.#text(sql), params as unknown[])
    return rows as T[]
  }

  /** The first row of a query, if any. */
  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  /** A statement's matched rows (the driver sets `CLIENT_FOUND_ROWS`). */
  async run(sql: string, params: readonly unknown[] = []): Promise<SqlRunResult> {
    const [result] = await this.#conn.query(this.#text(sql), params as unknown[])
    return { changes: (result as ResultSetHeader).affectedRows }
  }
}
