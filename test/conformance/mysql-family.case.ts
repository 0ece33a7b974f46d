/*
 * The conformance suite's options for the MySQL-protocol adapter: the same suite,
 * per-backend expectations in one record keyed by backend (kysely's `PerSQLDialect<T>`).
 */
import { afterAll } from 'vitest'

import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { TestDatabases } from '../support/mysql-databases.js'
import { emulateOceanBase, installL2Distance } from '../support/oceanbase-emulation.js'
import type { BackendUnderTest, ConformanceOptions, SkipEntry } from './memory-backend.case.js'
import { ALTER_HASH_TESTS } from './memory-vector.case.js'

/** Every test of the vector area (vector, hybrid and auto-as-hybrid search). */
const VECTOR_TESTS = [
  'vector > modes > capabilities report vector search and the fixed profile',
  'vector > modes > vector: nearest memories above the cosine floor, matchedBy vector',
  'vector > modes > hybrid fuses both channels with RRF; matchedBy lists admitting channels',
  'vector > modes > auto is hybrid when the projection is complete',
  'vector > modes > equal distances are ordered by memory id; scores follow ranks',
  'vector > modes > kinds filter the vector channel',
  'vector > visibility > no mode returns forgotten, merged or retired memories',
  'vector > visibility > an update replaces the vector; restore brings it back',
  'vector > outage > writes commit without vectors; auto uses fts; reindex completes the scope',
  'vector > outage > a failing query embedding: auto uses fts, explicit modes report it',
  'vector > outage > rebuild re-embeds every vector with a model',
  'vector > profile > the first configured profile is fixed; another one gets no vector capability',
  ...ALTER_HASH_TESTS,
]

/** The MySQL-protocol backends under test. */
export type MysqlFamilyBackend =
  'mariadb' | 'mariadb galera node' | 'oceanbase' | 'oceanbase (emulated on MariaDB)'

/** What each MySQL-protocol backend is expected not to run, and why. */
export const MYSQL_FAMILY_SKIPS: Readonly<Record<MysqlFamilyBackend, readonly SkipEntry[]>> = {
  mariadb: [{ reason: 'MariaDB has no VECTOR type', tests: VECTOR_TESTS }],
  'mariadb galera node': [{ reason: 'MariaDB has no VECTOR type', tests: VECTOR_TESTS }],
  oceanbase: [],
  'oceanbase (emulated on MariaDB)': [
    {
      reason:
        'InnoDB orders FULLTEXT hits by matched terms, then TF-IDF without length normalisation; the test expects BM25 (SQLite FTS5), which ranks the short memory first',
      tests: [
        'vector > modes > hybrid fuses both channels with RRF; matchedBy lists admitting channels',
      ],
    },
  ],
}

/** How each backend's URL and statements differ from the plain admin URL. */
const DIALECT_SETUP: Readonly<
  Record<MysqlFamilyBackend, { query: string; rewriteSql?: (sql: string) => string }>
> = {
  mariadb: { query: '' },
  'mariadb galera node': { query: '' },
  oceanbase: { query: '' },
  'oceanbase (emulated on MariaDB)': { query: '?dialect=oceanbase', rewriteSql: emulateOceanBase },
}

/**
 * Conformance options for a MySQL-protocol backend: like a fresh SQLite file, every `open` gets a
 * fresh database (created through `adminUrl`, dropped after the file), except that opens with the
 * same `reuse` key share one. `adminUrl` may be a function when the server is started by the
 * test file (read at the first open).
 */
export function mysqlFamilyOptions(
  name: MysqlFamilyBackend,
  adminUrl: string | (() => string),
): ConformanceOptions {
  const databases = new TestDatabases(adminUrl)
  const setup = DIALECT_SETUP[name]
  const reused = new Map<string, Promise<string>>()
  afterAll(() => databases.dropAll())
  const create = async (label: string): Promise<string> => {
    const url = await databases.create(label)
    if (setup.rewriteSql !== undefined) {
      const database = new URL(url).pathname.slice(1)
      await databases.admin((conn) => installL2Distance(conn, database))
    }
    return url + setup.query
  }
  const urlFor = (reuse: string | undefined): Promise<string> => {
    if (reuse === undefined) return create('db')
    let url = reused.get(reuse)
    if (url === undefined) {
      url = create('reuse')
      reused.set(reuse, url)
    }
    return url
  }
  const databaseOf = new WeakMap<BackendUnderTest, string>()
  return {
    name,
    open: async (o = {}) => {
      const url = await urlFor(o.reuse)
      const backend = await openMysqlBackend({
        url,
        embedder: o.embedder,
        ...(setup.rewriteSql === undefined ? {} : { rewriteSql: setup.rewriteSql }),
      })
      databaseOf.set(backend, new URL(url).pathname.slice(1))
      return backend
    },
    alterEmbeddingHash: (backend, memoryId) =>
      databases.admin(async (conn) => {
        const [result] = await conn.query(
          `UPDATE \`${databaseOf.get(backend) ?? ''}\`.memory_heads SET embedding_hash = ? WHERE memory_id = ?`,
          ['0'.repeat(64), memoryId],
        )
        if ((result as { affectedRows: number }).affectedRows !== 1) {
          throw new Error(`no vector row of ${memoryId}`)
        }
      }),
    plantRows: (backend, plant) =>
      databases.admin(async (conn) => {
        await conn.query(`USE \`${databaseOf.get(backend) ?? ''}\``)
        await plant(async (sql, params) => void (await conn.query(sql, [...params])))
      }),
    skip: MYSQL_FAMILY_SKIPS[name],
  }
}
