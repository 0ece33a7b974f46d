/*
 * The shape of the MySQL family's full-text candidate query (mysql-search.ts `searchTextSql`):
 * MariaDB 10.11 crashed twice under load freeing the on-disk (Aria) temporary table it made
 * because the sorted rows carried the TEXT column `searchable_text`. The query now sorts ids and
 * scores only and joins the text afterwards, so it makes no on-disk temporary table; the
 * session's `Created_tmp_disk_tables` counter proves it, on the machine's MariaDB.
 */
import mysql from 'mysql2/promise'
import { afterAll, expect, it } from 'vitest'

import type { PlannedTerm } from '../../src/core/query-plan.js'
import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { ftsBooleanQuery, searchTextSql } from '../../src/storage/mysql/mysql-search.js'
import {
  connectionOf,
  describeWithMariadb,
  MARIADB_TEST_URL,
  TestDatabases,
} from '../support/mysql-databases.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const opened: MysqlMemoryBackend[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  await databases.dropAll()
})

const WORDS = ['deploy', 'server', 'pnpm', 'install', 'friday', 'release', 'cache', 'build']

async function diskTables(conn: mysql.Connection): Promise<number> {
  const [rows] = await conn.query("SHOW SESSION STATUS LIKE 'Created_tmp_disk_tables'")
  return Number((rows as { Value: string }[])[0]?.Value)
}

describeWithMariadb('MySQL family full-text candidate query', () => {
  it('sorts ids and scores only: no on-disk temporary table, text joined for the chosen heads', async () => {
    const url = await databases.create('search_plan')
    const backend = await openMysqlBackend({ url })
    opened.push(backend)
    const entries = Array.from({ length: 60 }, (_, i) => ({
      kind: i % 3 === 0 ? 'fact' : 'note',
      text: `${WORDS[i % 8]} ${WORDS[(i + 1) % 8]} ${WORDS[(i * 3) % 8]} item ${i} ${'long filler text '.repeat(i % 9)}`,
    }))
    await backend.remember({ scopeId: 'plan', entries })

    const terms: PlannedTerm[] = [{ token: 'deploy' }, { token: 'server' }]
    const limit = 10
    const params = [
      ...terms.map((t) => ftsBooleanQuery([t])),
      ftsBooleanQuery(terms),
      ftsBooleanQuery(terms),
      'plan',
      ['fact', 'note'],
      limit,
    ]
    const conn = await mysql.createConnection(connectionOf(url))
    try {
      const before = await diskTables(conn)
      const [rows] = await conn.query(searchTextSql(true, terms.length), params)
      const after = await diskTables(conn)
      expect(after - before).toBe(0)

      const hits = rows as { memoryId: string; searchableText: string }[]
      expect(hits).toHaveLength(limit)
      // The 8 heads with both terms (i % 8 = 0) come first (matched DESC), each with its text.
      for (const hit of hits.slice(0, 8)) {
        expect(hit.searchableText).toMatch(/\bdeploy\b/)
        expect(hit.searchableText).toMatch(/\bserver\b/)
      }
      for (const hit of hits.slice(8)) expect(hit.searchableText).not.toMatch(/deploy server/)
      expect(new Set(hits.map((h) => h.memoryId)).size).toBe(limit)
    } finally {
      await conn.end()
    }
  })
})
