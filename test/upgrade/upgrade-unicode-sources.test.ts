/*
 * A reference database whose source ids are not ASCII (the reference accepts any non-blank text up
 * to 256 characters) moves whole: into SQLite and, in place, into MariaDB (whose source id columns
 * are utf8mb4 since schema version 6). The scope keeps every source, its original bytes, and the
 * entry citing them. docs/upgrade.md, docs/storage.md "Identifiers".
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import {
  copyReferenceToMysql,
  expectCitationsResolve,
  legacyCitationOf,
  makeReferenceDb,
  referenceCitations,
} from './reference-fixture.js'

const root = mkdtempSync(join(tmpdir(), 'pc-upgrade-unicode-'))
const databases = new TestDatabases(MARIADB_TEST_URL)
afterAll(async () => {
  await databases.dropAll()
  rmSync(root, { recursive: true, force: true })
})

const SCOPE = 'project:minutes'
const IDS = ['会议纪要-2025-12-01', '周会 记录 · Überblick', '纪'.repeat(256)]
const reference = makeReferenceDb(join(root, 'unicode.db'), ['--unicode-sources'])
const citations = referenceCitations(reference)

async function expectMoved(rt: MemoryRuntime, from: string): Promise<void> {
  const report = await rt.upgradeFromReference(from)
  expect(report.notMoved).toEqual([])
  expect(report.outcome).toBe('upgraded')
  expect(report.moved).toMatchObject({ scopes: 4, sources: 12 })
  expect((await rt.verify()).problems).toEqual([])
  const view = await rt.getSources({ scopeId: SCOPE, sourceIds: IDS })
  expect(view.sources.map((s) => s.source.sourceId)).toEqual(IDS)
  expect(view.sources.map((s) => s.content)).toEqual(
    IDS.map((_, i) => `minutes ${i}: 发布需要负责人批准`),
  )
  expect(view.sources[0]?.legacyPayload).toContain('"name":"会议纪要-2025-12-01"')
  const cited = citations.filter((c) => c.scopeId === SCOPE)
  expect(cited).toHaveLength(1)
  await expectCitationsResolve(rt, citations)
  const memory = await rt.get({
    scopeId: SCOPE,
    legacyCitation: legacyCitationOf(cited[0]!.citation),
  })
  expect(memory.memory.sources.map((s) => s.sourceId)).toEqual(IDS)
}

describe('upgrade of Unicode source ids', () => {
  it('into SQLite: the scope moves with every source and citation', async () => {
    const rt = await MemoryRuntime.open({ dataDir: join(root, 'to-sqlite') })
    try {
      await expectMoved(rt, reference)
    } finally {
      await rt.close()
    }
  })
})

describeWithMariadb('upgrade of Unicode source ids on MariaDB', () => {
  it('in place: the utf8mb4 source id columns keep them exactly', async () => {
    const url = await databases.create('unicode')
    await copyReferenceToMysql(reference, url)
    const rt = await MemoryRuntime.open({ databaseUrl: url })
    try {
      await expectMoved(rt, url)
    } finally {
      await rt.close()
    }
  })
})
