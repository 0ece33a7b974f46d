/*
 * Unicode source ids over HTTP (docs/storage.md "Identifiers"): captured, read, listed, cited and
 * erased through the typed client against a real server on loopback, over SQLite and over the
 * machine's MariaDB; an id with a control character or over 256 characters is 422
 * `invalid_request` with nothing written; two spellings of one id are one source.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { createPowerContextClient } from '../../src/client/index.js'
import { startServer } from '../../src/http/server-run.js'
import { MARIADB_SKIP_REASON, MARIADB_TEST_URL, TestDatabases } from '../support/mysql-databases.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-source-ids-'))
const databases = new TestDatabases(MARIADB_TEST_URL)
afterAll(async () => {
  await databases.dropAll()
  rmSync(dir, { recursive: true, force: true })
})

const SCOPE = 'minutes:http'
const ID = '会议纪要-2025-12-01'

async function roundTrip(storage: { dataDir: string } | { databaseUrl: string }): Promise<void> {
  const server = await startServer({
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    vectorAnn: false,
    ...storage,
  })
  try {
    const client = createPowerContextClient({ baseUrl: server.url })
    const post = (path: string, body: unknown): Promise<Response> =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    for (const bad of ['会议\u0000纪要', '会议\u001b[31m纪要', '纪'.repeat(257), ' 会议']) {
      const res = await post('/v1/sources/content', {
        scope_id: SCOPE,
        source_id: bad,
        content: 'x',
      })
      expect(res.status, JSON.stringify(bad).slice(0, 20)).toBe(422)
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request')
    }
    expect((await client.listSources({ scope_id: SCOPE })).high_watermark).toBe(0)

    const captured = await client.captureContent({
      scope_id: SCOPE,
      source_id: ID,
      content: '纪要',
    })
    expect(captured.source.source_id).toBe(ID)
    // The decomposed spelling of an id names the same source.
    const nfd = 'Cafe\u0301 纪要'
    await client.captureContent({ scope_id: SCOPE, source_id: nfd, content: 'café' })
    const again = await client.captureContent({
      scope_id: SCOPE,
      source_id: nfd.normalize('NFC'),
      content: 'café',
    })
    expect([again.source.source_id, again.position, again.created]).toEqual([
      'Caf\u00e9 纪要',
      2,
      false,
    ])
    const got = await client.getSources({ scope_id: SCOPE, source_ids: [ID] })
    expect(got.sources.map((s) => [s.source.source_id, s.content])).toEqual([[ID, '纪要']])
    const listed = await client.listSources({ scope_id: SCOPE })
    expect(listed.sources.map((s) => s.source.source_id)).toEqual([ID, 'Caf\u00e9 纪要'])
    const remembered = await client.remember({
      scope_id: SCOPE,
      entries: [
        { kind: 'fact', text: 'Minutes are kept', sources: [{ name: 'content', source_id: ID }] },
      ],
    })
    expect(remembered.results[0]?.memory.sources).toEqual([{ name: 'content', source_id: ID }])
    const redacted = await client.redact({ scope_id: SCOPE, source_id: ID, reason: 'test' })
    expect(redacted.items.map((i) => i.source_id)).toEqual([ID])
    const erased = await client.getSources({ scope_id: SCOPE, source_ids: [ID] })
    expect(erased.sources[0]?.content).toBe('[redacted]')
  } finally {
    await server.stop()
  }
}

describe('Unicode source ids over HTTP', () => {
  it('SQLite', async () => {
    await roundTrip({ dataDir: join(dir, 'data') })
  })

  it('MariaDB', async (ctx) => {
    if (MARIADB_SKIP_REASON !== undefined) return ctx.skip(MARIADB_SKIP_REASON)
    await roundTrip({ databaseUrl: await databases.create('srcid_http') })
  })
})
