/*
 * Throw-away databases on a MySQL-protocol server for tests: each run creates `pc_test_<random>`
 * databases through an admin URL and drops them afterwards.
 */
import { randomBytes } from 'node:crypto'

import mysql from 'mysql2/promise'

/** The MariaDB of the machine (shared/NOTES.md); override with POWERCONTEXT_TEST_MARIADB_URL. */
export const MARIADB_TEST_URL =
  process.env['POWERCONTEXT_TEST_MARIADB_URL'] ?? 'mysql://root@127.0.0.1:3306/test'

/** `url` with its database replaced. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** Connection options of a `mysql://` URL. */
export function connectionOf(url: string): mysql.ConnectionOptions {
  const u = new URL(url)
  return {
    host: u.hostname,
    port: u.port === '' ? 3306 : Number(u.port),
    user: decodeURIComponent(u.username),
    ...(u.password === '' ? {} : { password: decodeURIComponent(u.password) }),
    database: decodeURIComponent(u.pathname.slice(1)),
  }
}

/** Creates and drops the databases of one test file. */
export class TestDatabases {
  readonly #adminUrl: string
  readonly #created: string[] = []
  readonly #run = randomBytes(4).toString('hex')

  constructor(adminUrl: string) {
    this.#adminUrl = adminUrl
  }

  /** Runs SQL on the admin connection (e.g. to damage a table on purpose). */
  async admin<T>(work: (conn: mysql.Connection) => Promise<T>): Promise<T> {
    const conn = await mysql.createConnection(connectionOf(this.#adminUrl))
    try {
      return await work(conn)
    } finally {
      await conn.end()
    }
  }

  /** A new empty database; its URL (same credentials as the admin URL). */
  async create(label = 'db'): Promise<string> {
    const name = `pc_test_${this.#run}_${label.replace(/\W/g, '').slice(0, 24)}_${this.#created.length}`
    await this.admin((c) => c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`))
    this.#created.push(name)
    return withDatabase(this.#adminUrl, name)
  }

  /** Drops every database this instance created. */
  async dropAll(): Promise<void> {
    const names = this.#created.splice(0)
    if (names.length === 0) return
    await this.admin(async (c) => {
      for (const name of names) await c.query(`DROP DATABASE IF EXISTS \`${name}\``)
    })
  }
}
