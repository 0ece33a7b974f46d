/*
 * `admin upgrade-from-reference` from a MySQL-family database of the Python reference, on the
 * machine's MariaDB (its own pc_test_* databases): the reference's MySQL tables (utf8mb4_bin
 * identities, MEDIUMBLOB payloads) filled with the same rows as the SQLite fixture; upgraded into
 * SQLite and in place into the same MariaDB database; writers are refused and kept out.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { openMysqlReference } from '../../src/storage/mysql/reference-mysql.js'
import { expectCode } from '../conformance/memory-backend.case.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import {
  copyReferenceToMysql,
  expectCitationsResolve,
  makeReferenceDb,
  mysqlReferenceDigest,
  referenceCitations,
  withMysql,
} from './reference-fixture.js'

const root = mkdtempSync(join(tmpdir(), 'pc-upgrade-my-'))
const databases = new TestDatabases(MARIADB_TEST_URL)
afterAll(async () => {
  await databases.dropAll()
  rmSync(root, { recursive: true, force: true })
})

const sqlite = makeReferenceDb(join(root, 'basic.db'))
const citations = referenceCitations(sqlite)

describeWithMariadb('upgrade from a MariaDB reference database', () => {
  let reference: string
  beforeAll(async () => {
    reference = await databases.create('reference')
    await copyReferenceToMysql(sqlite, reference)
  })

  it('moves everything into SQLite; every old citation reads its text; the old tables stay', async () => {
    const before = await mysqlReferenceDigest(reference)
    const rt = await MemoryRuntime.open({ dataDir: join(root, 'to-sqlite') })
    try {
      const report = await rt.upgradeFromReference(reference)
      expect(report.kind).toBe('mysql')
      expect(report.writeGuard).toMatch(/locked for reading/)
      expect(report.outcome).toBe('upgraded')
      expect(report.moved).toMatchObject({
        scopes: 3,
        entries: 7,
        versions: 10,
        inactive: 1,
        sources: 9,
        cursors: 2,
      })
      expect((await rt.verify()).problems).toEqual([])
      await expectCitationsResolve(rt, citations)
      expect((await rt.upgradeFromReference(reference)).outcome).toBe('nothing_to_do')
    } finally {
      await rt.close()
    }
    expect(await mysqlReferenceDigest(reference)).toBe(before)
  })

  it('upgrades in place, into the same MariaDB database, beside the old tables', async () => {
    const url = await databases.create('inplace')
    await copyReferenceToMysql(sqlite, url)
    const before = await mysqlReferenceDigest(url)
    const rt = await MemoryRuntime.open({ databaseUrl: url })
    try {
      const dry = await rt.upgradeFromReference(url, { dryRun: true })
      expect(dry.outcome).toBe('rehearsed')
      expect((await rt.verify()).counts.memories).toBe(0)
      const report = await rt.upgradeFromReference(url)
      expect(report.outcome).toBe('upgraded')
      expect(report.moved.citations).toBe(10)
      expect((await rt.verify()).problems).toEqual([])
      await expectCitationsResolve(rt, citations)
      const hits = await rt.search({ scopeId: 'git:github.com/acme/api', query: 'owner approval' })
      expect(hits.hits[0]?.text).toBe('Production releases need owner approval')
    } finally {
      await rt.close()
    }
    expect(await mysqlReferenceDigest(url)).toBe(before)
  })

  it('refuses while a write is in progress, and a later writer waits for the upgrade', async () => {
    const url = await databases.create('busy')
    await copyReferenceToMysql(sqlite, url)
    const rt = await MemoryRuntime.open({ dataDir: join(root, 'busy') })
    try {
      await withMysql(url, async (writer) => {
        await writer.query('START TRANSACTION')
        await writer.query(
          'UPDATE pc_source_journal_heads SET position = position WHERE scope_id = ?',
          ['git:github.com/acme/api'],
        )
        await expectCode(rt.upgradeFromReference(url), 'state_conflict')
        await writer.query('ROLLBACK')
      })
      // While a session is open, every pc_* table is locked: a writer times out; after, it writes.
      const session = await openMysqlReference(url)
      await withMysql(url, async (writer) => {
        await writer.query('SET SESSION lock_wait_timeout = 1')
        const write = (): Promise<unknown> =>
          writer.query('UPDATE pc_source_journal_heads SET position = position')
        await expect(write()).rejects.toMatchObject({ errno: 1205 })
        await session.close()
        await write()
      })
      expect((await rt.upgradeFromReference(url)).outcome).toBe('upgraded')
    } finally {
      await rt.close()
    }
  })
})
