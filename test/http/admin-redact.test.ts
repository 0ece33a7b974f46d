/*
 * `POST /v1/admin/redact` on a real server behind its bearer token, reached by the typed client
 * and by `powercontext admin redact --server-url`; not an MCP tool (docs/http-api.md). The server
 * refuses to store credentials, so the ones the scan must find are planted as an older build
 * stored them: rows written into the server's database file behind its back, hashes fixed.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'

import { createPowerContextClient, PowerContextClientError } from '../../src/client/index.js'
import { databasePath } from '../../src/runtime/data-dir.js'
import { runCli } from '../support/cli-run.js'
import { type Exec, plantSourceContent, plantVersionText } from '../support/planted-secrets.js'
import { useTempServer } from '../support/temp-server.js'

const TOKEN = 'admin-redact-test-token'
const AWS_KEY = 'AKIAQ7ZX3EXAMPLE9HTP'
const dataDir = mkdtempSync(join(tmpdir(), 'powercontext-redact-http-data-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const temp = useTempServer('powercontext-redact-http-', { authToken: TOKEN, dataDir })

/** Runs `plant` on a connection of the test's own to the running server's database file. */
async function plantRows(plant: (exec: Exec) => Promise<void>): Promise<void> {
  const db = new Database(databasePath(dataDir))
  try {
    await plant(async (sql, params) => void db.prepare(sql).run(...params))
  } finally {
    db.close()
  }
}

describe('POST /v1/admin/redact', () => {
  it('needs the token, erases through the client, and reads show the marker', async () => {
    const anonymous = await fetch(`${temp.server.url}/v1/admin/redact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scope_id: 'http:redact', scan: true }),
    })
    expect(anonymous.status).toBe(401)
    const pc = createPowerContextClient({ baseUrl: temp.server.url, token: TOKEN })
    await pc.captureContent({
      scope_id: 'http:redact',
      source_id: 'paste',
      content: 'placeholder paste',
    })
    const { results } = await pc.remember({
      scope_id: 'http:redact',
      entries: [{ kind: 'fact', text: 'placeholder fact' }],
    })
    const ref = results[0]!.memory.memory_ref
    await plantRows(async (exec) => {
      await plantSourceContent(exec, 'http:redact', 'paste', `key ${AWS_KEY}`)
      await plantVersionText(exec, ref.artifact_id, `the deploy key is ${AWS_KEY}`)
    })
    const dry = await pc.redact({ scope_id: 'http:redact', scan: true, dry_run: true })
    expect(dry.items.map((i) => i.status)).toEqual(['would_redact', 'would_redact'])
    expect(JSON.stringify(dry)).not.toContain(AWS_KEY)
    const r = await pc.redact({ scope_id: 'http:redact', memory_ref: ref, reason: 'leaked' })
    expect(r.items[0]).toMatchObject({ target: 'version', status: 'redacted', memory_ref: ref })
    expect(r.erasure?.files_clean).toBe(true)
    const got = await pc.get({ scope_id: 'http:redact', memory_id: ref.artifact_id })
    expect(got.memory.text).toBe('[redacted]')
    expect(JSON.stringify(got)).not.toContain(AWS_KEY)
    expect(got.memory.redaction).toMatchObject({ reason: 'leaked', rule: null })
    const feed = await pc.changes({ scope_id: 'http:redact' })
    expect(feed.redactions).toEqual([
      expect.objectContaining({ target: 'version', reason: 'leaked' }),
    ])
    const missing = await pc.redact({ scope_id: 'http:redact', source_id: 'nope' }).catch((e) => e)
    expect(missing).toBeInstanceOf(PowerContextClientError)
    expect((missing as PowerContextClientError).code).toBe('source_not_found')
    const both = await pc
      .redact({ scope_id: 'http:redact', source_id: 'paste', scan: true })
      .catch((e: unknown) => e)
    expect((both as PowerContextClientError).code).toBe('invalid_request')
  })

  it('erases a decision record, and with a source the records quoting it (client and CLI)', async () => {
    const pc = createPowerContextClient({ baseUrl: temp.server.url, token: TOKEN })
    const scope = 'http:records'
    await pc.captureContent({ scope_id: scope, source_id: 'one', content: 'placeholder one' })
    const first = await pc.flush({ scope_id: scope })
    await pc.captureContent({ scope_id: scope, source_id: 'two', content: 'placeholder two' })
    const second = await pc.flush({ scope_id: scope })
    const firstId = first.record_id!
    const secondId = second.record_id!
    // As an older build's flush wrote them: each record quotes a credential.
    await plantRows(async (exec) => {
      for (const id of [firstId, secondId]) {
        await exec('UPDATE flush_records SET details_json = ? WHERE record_id = ?', [
          JSON.stringify({ candidates: [{ text: `key ${AWS_KEY}` }] }),
          id,
        ])
      }
    })
    const dry = await pc.redact({ scope_id: scope, scan: true, dry_run: true })
    expect(dry.items.map((i) => [i.target, i.record_id, i.fields])).toEqual([
      ['record', firstId, ['details.candidates']],
      ['record', secondId, ['details.candidates']],
    ])
    const r = await pc.redact({ scope_id: scope, record_id: firstId, reason: 'leaked' })
    expect(r.items).toEqual([
      expect.objectContaining({ target: 'record', record_id: firstId, source_id: null }),
    ])
    const records = await pc.flushRecords({ scope_id: scope, record_id: firstId })
    expect(records.records[0]?.redaction).toMatchObject({ reason: 'leaked', rule: null })
    expect(records.records[0]?.details['redacted']).toBe('[redacted]')
    expect(JSON.stringify(records)).not.toContain(AWS_KEY)
    const feed = await pc.changes({ scope_id: scope })
    expect(feed.redactions).toEqual([
      expect.objectContaining({ target: 'record', record_id: firstId, memory_ref: null }),
    ])
    const unknown = await pc
      .redact({ scope_id: scope, record_id: 'flr_unknown' })
      .catch((e: unknown) => e)
    expect((unknown as PowerContextClientError).code).toBe('invalid_request')

    const url = ['--server-url', temp.server.url, '--token', TOKEN]
    const cli = await runCli(...url, 'admin', 'redact', '--scope', scope, '--source', 'two')
    expect(cli.code).toBe(0)
    expect(cli.out).toMatch(/^redacted: source two seq \d+$/m)
    expect(cli.out).toMatch(new RegExp(`^redacted: decision record ${secondId} seq \\d+$`, 'm'))
    const again = await runCli(...url, 'admin', 'redact', '--scope', scope, '--record', firstId)
    expect(again.out).toMatch(new RegExp(`^unchanged: decision record ${firstId} seq \\d+$`, 'm'))
    const listed = await runCli(...url, 'flush-records', '--scope', scope)
    expect(listed.out).toMatch(
      new RegExp(`^${secondId} .* \\(redacted \\S+: redacted by an administrator\\)$`, 'm'),
    )
    expect(listed.out).not.toContain(AWS_KEY)
    const both = await runCli(
      ...url,
      'admin',
      'redact',
      '--scope',
      scope,
      '--record',
      firstId,
      '--scan',
    )
    expect(both.code).not.toBe(0)
    expect((await pc.redact({ scope_id: scope, scan: true, dry_run: true })).items).toEqual([])
  })

  it('is not an MCP tool', async () => {
    const res = await fetch(`${temp.server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${TOKEN}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    const text = await res.text()
    expect(res.status).toBe(200)
    expect(text).toContain('remember_memory')
    expect(text).not.toMatch(/redact/i)
  })

  it('admin redact --server-url erases the scan matches and prints ids and rules only', async () => {
    const url = ['--server-url', temp.server.url, '--token', TOKEN]
    const capture = await runCli(
      ...url,
      'capture',
      '--scope',
      'http:cli',
      '--source-id',
      'env',
      'AWS=placeholder',
    )
    expect(capture.code).toBe(0)
    await plantRows((exec) => plantSourceContent(exec, 'http:cli', 'env', `AWS=${AWS_KEY}`))
    const dry = await runCli(
      ...url,
      'admin',
      'redact',
      '--scope',
      'http:cli',
      '--scan',
      '--dry-run',
    )
    expect(dry.code).toBe(0)
    expect(dry.out).toMatch(/^would redact: source env \(\S+ in content\)$/m)
    expect(dry.out).not.toContain(AWS_KEY)
    const run = await runCli(...url, 'admin', 'redact', '--scope', 'http:cli', '--scan')
    expect(run.out).toMatch(/^redacted: source env \(\S+ in content\) seq 1$/m)
    expect(run.out).toMatch(/database files rewritten without the erased bytes/)
    const feed = await runCli(...url, '--json', 'changes', '--scope', 'http:cli')
    expect(JSON.parse(feed.out).redactions).toEqual([
      expect.objectContaining({ seq: 1, target: 'source', source_id: 'env' }),
    ])
    const pc = createPowerContextClient({ baseUrl: temp.server.url, token: TOKEN })
    const sources = await pc.getSources({ scope_id: 'http:cli', source_ids: ['env'] })
    expect(sources.sources[0]).toMatchObject({ content: '[redacted]', metadata: {} })
  })
})
