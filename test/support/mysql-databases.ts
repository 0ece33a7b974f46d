/*
 * Throw-away databases on a MySQL-protocol server for tests: each run creates `pc_test_<random>`
 * databases through an admin URL and drops them afterwards.
 */
import { randomBytes } from 'node:crypto'

import mysql from 'mysql2/promise'
import { describe, it } from 'vitest'

const given = process.env['POWERCONTEXT_TEST_MARIADB_URL']
const ci = process.env['CI']

/**
 * The MariaDB of the tests: POWERCONTEXT_TEST_MARIADB_URL, else the machine's server
 * (shared/NOTES.md) at `MYSQL_HOST` (default 127.0.0.1) and `MYSQL_TCP_PORT` (default 3306), the
 * MySQL clients' own variables, as root without a password.
 */
export const MARIADB_TEST_URL =
  given !== undefined && given !== ''
    ? given
    : `mysql://root@${process.env['MYSQL_HOST'] || '127.0.0.1'}:${process.env['MYSQL_TCP_PORT'] || '3306'}/test`

/**
 * Whether the MariaDB suites must run: in CI (`CI` set, not `false`/`0`) or with an explicit
 * POWERCONTEXT_TEST_MARIADB_URL. Then an unreachable server fails every file that imports this
 * module; otherwise those suites skip, naming why (docs/development.md).
 */
export const MARIADB_REQUIRED =
  (given !== undefined && given !== '') ||
  (ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0')

async function probe(url: string): Promise<string | undefined> {
  try {
    const conn = await mysql.createConnection({ ...connectionOf(url), connectTimeout: 5_000 })
    await conn.end()
    return undefined
  } catch (err) {
    const where = new URL(url).host
    const why =
      err instanceof Error ? err.message || String((err as { code?: unknown }).code) : String(err)
    if (MARIADB_REQUIRED)
      throw new Error(
        `MariaDB is required here (CI or POWERCONTEXT_TEST_MARIADB_URL) but ${where} did not answer: ${why}`,
        { cause: err },
      )
    return `no MariaDB at ${where} (${why}); start it, or set POWERCONTEXT_TEST_MARIADB_URL (CI=true requires it)`
  }
}

/** Why the MariaDB suites skip on this machine, or undefined when they run. */
export const MARIADB_SKIP_REASON: string | undefined = await probe(MARIADB_TEST_URL)

/**
 * `describe` for a suite that needs MariaDB: the suite itself when the server answers, else one
 * test skipped with MARIADB_SKIP_REASON (never a silent skip).
 */
export function describeWithMariadb(title: string, body: () => void): void {
  const reason = MARIADB_SKIP_REASON
  if (reason === undefined) describe(title, body)
  else describe(title, () => it('needs MariaDB', (ctx) => ctx.skip(reason)))
}

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
  readonly #adminUrlOf: () => string
  readonly #created: string[] = []
  readonly #run = randomBytes(4).toString('hex')

  /** `adminUrl`: a URL, or a function giving it (read when first needed). */
  constructor(adminUrl: string | (() => string)) {
    this.#adminUrlOf = typeof adminUrl === 'string' ? () => adminUrl : adminUrl
  }

  get #adminUrl(): string {
    return this.#adminUrlOf()
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
