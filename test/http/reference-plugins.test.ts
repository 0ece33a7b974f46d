/**
 * The Python reference's own Claude Code and Codex plugins against this server (docs/agents.md, docs/upgrade.md):
 * the requests they send, recorded from the real hook scripts (test/fixtures/
 * reference-plugin-requests.json), replayed over loopback against a real server, and every answer
 * checked the way the plugins check it — the prepare envelope strictly (exactly four fields, the
 * schema id, byte count equal to the content's UTF-8 length, at most their 8,000-byte budget,
 * `empty` ⇒ null/0, HTTP 200 exactly), the capture's `position`, and the flush loop's
 * `current_cursor` reaching that position within their four calls.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'

interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Record<string, unknown>
}
const RECORDED = JSON.parse(
  readFileSync(new URL('../fixtures/reference-plugin-requests.json', import.meta.url), 'utf8'),
) as { plugins: Record<'claude-code' | 'codex', RecordedRequest[]> }

/** The plugins' budget and their flush loop's call limit. */
const PLUGIN_MAX_CONTEXT_BYTES = 8000
const PLUGIN_FLUSH_MAX_CALLS = 4

/**
 * The plugins' `validate_prepared_context`, restated: anything else and they inject nothing.
 * Returns the content to inject (null for `empty`), or throws.
 */
function pluginAccepts(status: number, response: unknown): string | null {
  if (status !== 200) throw new Error(`plugins expect HTTP 200, got ${status}`)
  if (typeof response !== 'object' || response === null || Array.isArray(response))
    throw new Error('not an object')
  const r = response as Record<string, unknown>
  const keys = Object.keys(r).sort()
  if (JSON.stringify(keys) !== JSON.stringify(['content', 'content_bytes', 'schema', 'status']))
    throw new Error(`fields must be exactly schema, status, content, content_bytes: ${keys}`)
  if (r['schema'] !== 'powercontext.prepared-context.v1') throw new Error('schema id')
  const bytes = r['content_bytes']
  if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0)
    throw new Error('content_bytes must be a non-negative integer')
  if (r['status'] === 'empty') {
    if (r['content'] !== null || bytes !== 0) throw new Error('empty needs content null, 0 bytes')
    return null
  }
  if (r['status'] !== 'ready') throw new Error('status')
  const content = r['content']
  if (typeof content !== 'string' || content.trim() === '') throw new Error('blank content')
  if (!content.isWellFormed()) throw new Error('content is not encodable as UTF-8')
  if (Buffer.byteLength(content, 'utf8') !== bytes) throw new Error('content_bytes mismatch')
  if (bytes > PLUGIN_MAX_CONTEXT_BYTES) throw new Error('over the plugin budget')
  return content
}

const SCOPE = 'git:github.com/acme/payments-api'
const dir = mkdtempSync(join(tmpdir(), 'pc-reference-plugins-'))
let server: RunningServer

async function send(req: RecordedRequest, body: Record<string, unknown> = req.body) {
  const res = await fetch(`${server.url}${req.path}`, {
    method: req.method,
    headers: req.headers,
    body: JSON.stringify(body),
    redirect: 'manual', // the plugins refuse redirects
  })
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }
}

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: dir, logLevel: 'silent' })
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  await post('/v1/memory/remember', {
    scope_id: SCOPE,
    entries: [
      { kind: 'constraint', text: 'Never log card numbers; mask all but the last four digits.' },
      {
        kind: 'decision',
        text: 'Refunds go through the ledger service, never straight to the PSP.',
      },
      {
        kind: 'fact',
        text: 'The payments API retries PSP timeouts twice with exponential backoff.',
      },
      ...Array.from({ length: 12 }, (_, i) => ({
        kind: 'fact',
        text: `Refund runbook step ${i}: ${'check the ledger entry and the PSP reply. '.repeat(40)}`,
      })),
    ],
  })
})
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

for (const plugin of ['claude-code', 'codex'] as const) {
  describe(`the reference's ${plugin} plugin`, () => {
    const [prepare, capture, flush] = RECORDED.plugins[plugin]
    if (prepare === undefined || capture === undefined || flush === undefined)
      throw new Error('recording incomplete')

    it('gets a prepared context it accepts, within its budget, citing exact memory versions', async () => {
      expect(prepare.body).toEqual({
        scope_id: SCOPE,
        query: expect.any(String),
        max_bytes: PLUGIN_MAX_CONTEXT_BYTES,
      })
      const { status, json } = await send(prepare)
      const content = pluginAccepts(status, json)
      expect(content).not.toBeNull()
      const lines = content!.split('\n')
      expect(lines.at(-1)).toBe('END_POWERCONTEXT_PREPARED_CONTEXT_V1')
      expect(lines.at(-3)).toBe('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
      const { items } = JSON.parse(lines.at(-2)!) as {
        items: { citation: { artifact_id: string; revision: number } }[]
      }
      expect(items.length).toBeGreaterThan(0)
      for (const { citation } of items) {
        const got = await fetch(`${server.url}/v1/memory/get`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ scope_id: SCOPE, memory_ref: citation }),
        })
        expect(got.status).toBe(200)
      }
    })

    it('an answer with nothing to recall is an `empty` envelope it accepts', async () => {
      const { status, json } = await send(prepare, { ...prepare.body, query: 'zebra unicorn' })
      expect(pluginAccepts(status, json)).toBeNull()
    })

    it('captures the prompt with its own fields; a rerun is the same source', async () => {
      const first = await send(capture)
      expect(first.status).toBe(202)
      const position = first.json['position']
      expect(Number.isInteger(position) && (position as number) >= 1).toBe(true)
      const again = await send(capture)
      expect(again.status).toBe(202)
      expect(again.json['position']).toBe(position)
      expect(again.json['created']).toBe(false)
    })

    it("flush reaches the captured position through `current_cursor` within the plugin's calls", async () => {
      const captured = (await send(capture)).json['position'] as number
      let reached = false
      for (let call = 0; call < PLUGIN_FLUSH_MAX_CALLS && !reached; call++) {
        const { status, json } = await send(flush)
        expect(status).toBe(200)
        const cursor = json['current_cursor']
        expect(cursor).toBe(json['cursor'])
        reached = typeof cursor === 'number' && Number.isInteger(cursor) && cursor >= captured
      }
      expect(reached).toBe(true)
    })
  })
}
