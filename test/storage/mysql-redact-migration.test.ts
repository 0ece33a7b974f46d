/*
 * Schema 5 on the MySQL family: a database written by schema 4, whose `redactions.target` accepts
 * only `source` and `version`, is altered at open (column `record_id`, the target's CHECK, a key
 * per record) keeping its rows, and can then erase decision records (docs/storage.md
 * "Redaction"). The statements can run again unchanged (a migration interrupted half way is run
 * again). On the machine's MariaDB.
 */
import { afterAll, expect, it } from 'vitest'

import type { MysqlMemoryBackend } from '../../src/storage/mysql/index.js'
import { openMysqlBackend } from '../../src/storage/mysql/index.js'
import { migrationStatements, MYSQL_SCHEMA_VERSION } from '../../src/storage/mysql/mysql-schema.js'
import { MYSQL_DIALECTS } from '../../src/storage/mysql/mysql-search.js'
import { expectRecordErased, flushWindow } from '../support/flush-window.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const databases = new TestDatabases(MARIADB_TEST_URL)
const opened: MysqlMemoryBackend[] = []
afterAll(async () => {
  for (const b of opened) await b.close()
  await databases.dropAll()
})

describeWithMariadb('MySQL schema 5: decision records as a redaction target', () => {
  it('a schema 4 database keeps its redactions and can then erase a decision record', async () => {
    expect(MYSQL_SCHEMA_VERSION).toBeGreaterThanOrEqual(5)
    const url = await databases.create('redact-migration')
    const name = new URL(url).pathname.slice(1)
    const scopeId = 'project:acme/api'
    const before = await openMysqlBackend({ url })
    await before.captureSource({ scopeId, sourceId: 'first', content: 'ports are 80 and 443' })
    const res = await flushWindow(before, scopeId, 1, {
      candidates: [{ text: 'ports are 80 and 443' }],
    })
    await before.captureSource({ scopeId, sourceId: 'card', content: 'Dana +1 415 555 0199' })
    await before.redact({ scopeId, target: { sourceId: 'card' }, reason: 'pii' })
    const feed = await before.changes({ scopeId, since: 0 })
    await before.close()

    // Back to schema 4's table, rows kept.
    await databases.admin(async (c) => {
      await c.query(`ALTER TABLE \`${name}\`.redactions DROP INDEX redactions_by_record`)
      await c.query(`ALTER TABLE \`${name}\`.redactions DROP COLUMN record_id`)
      await c.query(`ALTER TABLE \`${name}\`.redactions MODIFY COLUMN target
        VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
        CHECK (target IN ('source', 'version'))`)
      await c.query(`UPDATE \`${name}\`.schema_version SET version = 4`)
      // The check is real: schema 4 refuses the new target.
      await expect(
        c.query(
          `INSERT INTO \`${name}\`.redactions (scope_id, seq, target, reason, redacted_at,
             operation_id) VALUES (?, 99, 'record', 'x', 'x', 'x')`,
          [scopeId],
        ),
      ).rejects.toThrow(/CONSTRAINT/)
    })

    const after = await openMysqlBackend({ url })
    opened.push(after)
    expect((await after.changes({ scopeId, since: 0 })).redactions).toEqual(feed.redactions)
    // Run again, the statements change nothing and fail nothing.
    await databases.admin(async (c) => {
      await c.query(`USE \`${name}\``)
      for (const sql of migrationStatements(MYSQL_DIALECTS.mariadb, 4)) await c.query(sql)
    })
    await expectRecordErased(after, scopeId, res.recordId, 'ports are 80')
  })
})
