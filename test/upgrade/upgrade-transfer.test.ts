/*
 * An upgraded database moves on with `admin export` / `admin import` like any other: the upgrade
 * tables (old citations, original payloads, upgraded cursors) travel with the rows, a skipped
 * source keeps its number of the change sequence, and the import streams its file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import { describeWithMariadb, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'
import { expectCitationsResolve, makeReferenceDb, referenceCitations } from './reference-fixture.js'

const root = mkdtempSync(join(tmpdir(), 'pc-upgrade-tx-'))
const databases = new TestDatabases(MARIADB_TEST_URL)
afterAll(async () => {
  await databases.dropAll()
  rmSync(root, { recursive: true, force: true })
})

const A = 'git:github.com/acme/api'

async function records(rt: MemoryRuntime): Promise<ExportRecord[]> {
  const out: ExportRecord[] = []
  await rt.exportRows((r) => {
    out.push(JSON.parse(JSON.stringify(r)) as ExportRecord)
  })
  return out
}

const comparable = (rs: readonly ExportRecord[]) =>
  rs.map((r) => (r.type === 'header' ? { type: 'header', version: r.version } : r))

describeWithMariadb('export and import of an upgraded database', () => {
  it('carries the upgrade tables and skipped sources to SQLite and MariaDB and back', async () => {
    const reference = makeReferenceDb(join(root, 'basic.db'))
    const citations = referenceCitations(reference)
    const rt = await MemoryRuntime.open({ dataDir: join(root, 'source') })
    expect((await rt.upgradeFromReference(reference)).outcome).toBe('upgraded')
    // A source flush gives up on takes a number of the scope's change sequence, between changes.
    await rt.flush({ scopeId: A })
    await rt.captureSource({ scopeId: A, sourceId: 'poison', content: 'bad output follows' })
    const w = await rt.backend.journal.window({ scopeId: A })
    const skipped = await rt.backend.journal.fail({
      scopeId: A,
      expected: w.cursor,
      through: w.cursor.position + 1,
      error: { code: 'invalid_inference_output', message: 'bad output' },
      maxAttempts: 1,
      record: { mode: 'structured', model: null, promptVersion: null, details: { note: 'test' } },
    })
    expect(skipped.skipped).not.toBeNull()
    await rt.remember({ scopeId: A, entries: [{ kind: 'fact', text: 'written after the skip' }] })
    const exported = await records(rt)
    await rt.close()
    expect(exported[0]).toMatchObject({ type: 'header', version: 4 })
    expect(exported.filter((r) => r.type === 'legacy_citation')).toHaveLength(10)
    expect(exported.filter((r) => r.type === 'legacy_payload')).toHaveLength(9)
    expect(exported.filter((r) => r.type === 'legacy_upgrade')).toHaveLength(3)
    expect(exported.some((r) => r.type === 'failure' && r.row.skipSeq !== null)).toBe(true)

    const file = join(root, 'export.jsonl')
    writeFileSync(file, exported.map((r) => JSON.stringify(r)).join('\n') + '\n')
    const url = await databases.create('upgraded')
    const lines: string[] = []
    const io = { out: (s: string) => lines.push(s), err: (s: string) => lines.push(s) }
    expect(
      await main(['node', 'powercontext', '--database', url, 'admin', 'import', file], io),
    ).toBe(0)
    expect(lines.join('\n')).toMatch(/verify: ok/)

    const maria = await MemoryRuntime.open({ databaseUrl: url })
    try {
      await expectCitationsResolve(maria, citations)
      const zeta = await maria.getSources({ scopeId: A, sourceIds: ['note-zeta'] })
      expect(zeta.sources[0]?.legacyPayload).toContain('"metadata":{"zeta":1,"alpha"')
      expect(comparable(await records(maria))).toEqual(comparable(exported))
    } finally {
      await maria.close()
    }
    const back = await MemoryRuntime.open({ dataDir: join(root, 'back') })
    try {
      await back.importRows(exported)
      expect((await back.verify()).problems).toEqual([])
      expect(comparable(await records(back))).toEqual(comparable(exported))
    } finally {
      await back.close()
    }
  })

  it('still reads a version 1 export (written before the upgrade tables existed)', async () => {
    const rt = await MemoryRuntime.open({ dataDir: join(root, 'v1') })
    await rt.remember({
      scopeId: 'p:v1',
      entries: [{ kind: 'fact', text: 'from a version 1 export' }],
    })
    const v1 = (await records(rt))
      .filter((r) => !r.type.startsWith('legacy_'))
      .map((r) => {
        if (r.type === 'header') return { ...r, version: 1 }
        if (r.type !== 'end') return r
        const counts = Object.fromEntries(
          Object.entries(r.counts).filter(([k]) => !k.startsWith('legacy_')),
        )
        return { ...r, counts }
      })
    await rt.close()
    const target = await MemoryRuntime.open({ dataDir: join(root, 'v1-target') })
    try {
      const report = await target.importRows(v1)
      expect(report.counts['memory']).toBe(1)
      expect((await target.verify()).ok).toBe(true)
    } finally {
      await target.close()
    }
  })
})
