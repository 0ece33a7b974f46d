/*
 * Schema version 6 of the MySQL-protocol adapter on the machine's MariaDB: a database written by
 * version 4 (source ids in ASCII columns, foreign keys named by the server) is migrated at open:
 * its source id columns become utf8mb4 with a binary collation, every foreign key is back, the
 * rows are intact, a Unicode source id is then stored and read exactly, and running the migration
 * again (an interrupted open) changes nothing. docs/storage.md "Identifiers".
 */
import type { Connection } from 'mysql2/promise'
import { afterAll, expect, it } from 'vitest'

import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const opened: MysqlMemoryBackend[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  await databases.dropAll()
})

const TABLES = ['sources', 'source_failures', 'legacy_source_payloads', 'redactions']
const IN = TABLES.map((t) => `'${t}'`).join(', ')

async function open(url: string): Promise<MysqlMemoryBackend> {
  const backend = await openMysqlBackend({ url })
  opened.push(backend)
  return backend
}

/** Every foreign key of the four tables: `table(columns)->referenced`, sorted. */
async function foreignKeys(c: Connection, db: string): Promise<string[]> {
  const [rows] = await c.query(
    `SELECT TABLE_NAME AS t, CONSTRAINT_NAME AS n, REFERENCED_TABLE_NAME AS r,
            GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) AS cols
       FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL AND TABLE_NAME IN (${IN})
      GROUP BY TABLE_NAME, CONSTRAINT_NAME, REFERENCED_TABLE_NAME`,
    [db],
  )
  return (rows as { t: string; r: string; cols: string }[])
    .map((k) => `${k.t}(${k.cols})->${k.r}`)
    .sort()
}

async function columnTypes(c: Connection, db: string): Promise<string[]> {
  const [rows] = await c.query(
    `SELECT CONCAT(TABLE_NAME, ' ', COLUMN_TYPE, ' ', COLLATION_NAME) AS d FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = ? AND COLUMN_NAME = 'source_id' AND TABLE_NAME IN (${IN})
      ORDER BY TABLE_NAME`,
    [db],
  )
  return (rows as { d: string }[]).map((r) => r.d).sort()
}

/** Puts the four tables back as schema version 4 made them, keys named by the server. */
async function backToVersion4(c: Connection, db: string): Promise<void> {
  await c.query(`USE \`${db}\``)
  const [keys] = await c.query(
    `SELECT DISTINCT TABLE_NAME AS t, CONSTRAINT_NAME AS n FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = ? AND REFERENCED_TABLE_NAME IS NOT NULL AND TABLE_NAME IN (${IN})`,
    [db],
  )
  for (const k of keys as { t: string; n: string }[])
    await c.query(`ALTER TABLE ${k.t} DROP FOREIGN KEY ${k.n}`)
  for (const t of TABLES) {
    const nulls = t === 'redactions' ? 'NULL' : 'NOT NULL'
    await c.query(
      `ALTER TABLE ${t} MODIFY source_id VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin ${nulls}`,
    )
  }
  await c.query('ALTER TABLE sources ADD FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)')
  await c.query(
    'ALTER TABLE source_failures ADD FOREIGN KEY (scope_id, position) REFERENCES sources (scope_id, position)',
  )
  await c.query(
    'ALTER TABLE legacy_source_payloads ADD FOREIGN KEY (scope_id, source_type, source_id) REFERENCES sources (scope_id, source_type, source_id)',
  )
  await c.query('ALTER TABLE redactions ADD FOREIGN KEY (scope_id) REFERENCES scopes (scope_id)')
  await c.query(
    'ALTER TABLE redactions ADD FOREIGN KEY (memory_id) REFERENCES memories (memory_id)',
  )
  await c.query('UPDATE schema_version SET version = 4')
}

const EXPECTED_KEYS = [
  'legacy_source_payloads(scope_id,source_type,source_id)->sources',
  'redactions(memory_id)->memories',
  'redactions(scope_id)->scopes',
  'source_failures(scope_id,position)->sources',
  'sources(scope_id)->scopes',
]

describeWithMariadb('source id columns (schema version 6)', () => {
  it('a version 4 database is widened at open, keys and rows kept; a rerun changes nothing', async () => {
    const url = await databases.create('srcid')
    const db = new URL(url).pathname.slice(1)
    const first = await open(url)
    await first.captureSource({ scopeId: 'p', sourceId: 'old-id', content: 'kept' })
    await first.captureSource({ scopeId: 'p', sourceId: 'erased', content: 'gone' })
    await first.redact({ scopeId: 'p', target: { sourceId: 'erased' } })
    await first.close()
    await databases.admin((c) => backToVersion4(c, db))
    expect(await databases.admin((c) => columnTypes(c, db))).toEqual(
      TABLES.map((t) => `${t} varchar(128) ascii_bin`).sort(),
    )

    const second = await open(url)
    expect(await databases.admin((c) => columnTypes(c, db))).toEqual(
      TABLES.map((t) => `${t} varchar(256) utf8mb4_bin`).sort(),
    )
    expect(await databases.admin((c) => foreignKeys(c, db))).toEqual(EXPECTED_KEYS)
    const got = await second.getSources({ scopeId: 'p', sourceIds: ['old-id', 'erased'] })
    expect(got.sources.map((s) => [s.source.sourceId, s.content])).toEqual([
      ['old-id', 'kept'],
      ['erased', '[redacted]'],
    ])
    const id = '会议纪要-2025-12-01'
    await second.captureSource({ scopeId: 'p', sourceId: id, content: '纪要' })
    const back = await second.getSources({ scopeId: 'p', sourceIds: [id] })
    expect(back.sources[0]?.source.sourceId).toBe(id)
    expect(back.sources[0]?.content).toBe('纪要')
    await second.close()

    // An open interrupted after the columns were altered: the keys are added again, once.
    await databases.admin(async (c) => {
      await c.query(`USE \`${db}\``)
      const [keys] = await c.query(
        `SELECT DISTINCT CONSTRAINT_NAME AS n FROM information_schema.KEY_COLUMN_USAGE
          WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'legacy_source_payloads' AND REFERENCED_TABLE_NAME IS NOT NULL`,
        [db],
      )
      for (const k of keys as { n: string }[])
        await c.query(`ALTER TABLE legacy_source_payloads DROP FOREIGN KEY ${k.n}`)
      await c.query('UPDATE schema_version SET version = 4')
    })
    const third = await open(url)
    expect(await databases.admin((c) => foreignKeys(c, db))).toEqual(EXPECTED_KEYS)
    expect((await third.getSources({ scopeId: 'p', sourceIds: [id] })).sources).toHaveLength(1)
  })
})
