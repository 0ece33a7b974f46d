/**
 * The secret gate end to end on a real server on loopback: `remember` carrying a credential is
 * refused as `secret_detected` (422) over HTTP (raw and through the typed client), over MCP
 * (`/mcp`, an `isError` tool result) and by the CLI (`--server-url` and a local data directory:
 * exit 1, one error line); capture is refused the same way. The answer names the field and the
 * rule and never holds the secret; nothing is written.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, describe, expect, it } from 'vitest'

import { createPowerContextClient, PowerContextClientError } from '../../src/client/index.js'
import { runCli } from '../support/cli-run.js'
import { useTempServer } from '../support/temp-server.js'

const t = useTempServer('pc-secret-gate-')
// Built at run time so that no scanner mistakes this file for a leak.
const TOKEN = ['ghp_', 'q7Lm2Xv9Rt4Kp8Wn3Zb6Yc1Hd5Jf0Gs2Ae7U'].join('')
const TEXT = `The CI deploy token is ${TOKEN}`
const ENV = ['DB_PASSWORD=', 'Staging', '2026!x'].join('')
const clients: Client[] = []
afterAll(async () => {
  for (const c of clients) await c.close()
})

const post = async (path: string, body: unknown) => {
  const res = await fetch(new URL(path, t.server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, text: await res.text() }
}

async function expectNothingStored(scope: string) {
  const pc = createPowerContextClient({ baseUrl: t.server.url })
  expect((await pc.list({ scope_id: scope })).memories).toEqual([])
  expect((await pc.changes({ scope_id: scope })).changes).toEqual([])
  expect((await pc.listSources({ scope_id: scope })).sources).toEqual([])
}

describe('the secret gate on every surface', () => {
  it('HTTP answers 422 secret_detected naming the field and rule, never the secret', async () => {
    const scope = 'gate:http'
    const r = await post('/v1/memory/remember', {
      scope_id: scope,
      entries: [
        { kind: 'fact', text: 'clean' },
        { kind: 'fact', text: TEXT },
      ],
    })
    expect(r.status).toBe(422)
    const body = JSON.parse(r.text) as {
      error: { code: string; details: unknown; message: string }
    }
    expect(body.error.code).toBe('secret_detected')
    expect(body.error.details).toEqual({ field: 'entries[1].text', rule: 'github_token' })
    expect(body.error.message).toBe(
      'entries[1].text: looks like a credential (rule github_token); refused',
    )
    expect(r.text).not.toContain(TOKEN.slice(4))
    const captured = await post('/v1/sources/content', { scope_id: scope, content: ENV })
    expect(captured.status).toBe(422)
    expect(JSON.parse(captured.text).error.details).toEqual({
      field: 'content',
      rule: 'credential_assignment',
    })
    expect(captured.text).not.toContain('Staging2026')
    await expectNothingStored(scope)
  })

  it('the typed client throws PowerContextClientError with the code', async () => {
    const pc = createPowerContextClient({ baseUrl: t.server.url })
    const err = await pc
      .remember({ scope_id: 'gate:client', entries: [{ kind: 'fact', text: ENV }] })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PowerContextClientError)
    expect(err).toMatchObject({ code: 'secret_detected', status: 422 })
  })

  it('MCP answers an isError tool result with the code', async () => {
    const client = new Client({ name: 'secret-gate-test', version: '0.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.server.url)))
    clients.push(client)
    const r = (await client.callTool({
      name: 'remember_memory',
      arguments: { scope_id: 'gate:mcp', entries: [{ kind: 'fact', text: TEXT }] },
    })) as CallToolResult
    expect(r.isError).toBe(true)
    const text = (r.content[0] as { text: string }).text
    expect(text).toBe(
      'secret_detected: entries[0].text: looks like a credential (rule github_token); refused',
    )
    expect(JSON.stringify(r)).not.toContain(TOKEN.slice(4))
    await expectNothingStored('gate:mcp')
  })

  it('the CLI exits 1 with one error line, over --server-url and on a local data directory', async () => {
    const remote = await runCli(
      '--server-url',
      t.server.url,
      'remember',
      '--scope',
      'gate:cli',
      TEXT,
    )
    expect(remote.code).toBe(1)
    expect(remote.out).toBe('')
    expect(remote.err).toMatch(
      /^error: secret_detected: entries\[0\]\.text: looks like a credential \(rule github_token\); refused \(request [^)]+\)\n/,
    )
    expect(remote.err).not.toContain(TOKEN.slice(4))
    const json = await runCli(
      '--server-url',
      t.server.url,
      '--json',
      'remember',
      '--scope',
      'gate:cli',
      ENV,
    )
    expect(json.code).toBe(1)
    expect(JSON.parse(json.err).error).toMatchObject({
      code: 'secret_detected',
      details: { field: 'entries[0].text', rule: 'credential_assignment' },
    })
    const local = await runCli('--data-dir', t.tempDir(), 'remember', '--scope', 'gate:cli', ENV)
    expect(local.code).toBe(1)
    expect(local.err).toMatch(
      /^error: secret_detected: entries\[0\]\.text: looks like a credential/,
    )
    expect(local.err).not.toContain('Staging2026')
    await expectNothingStored('gate:cli')
  })
})
