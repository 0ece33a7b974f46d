/**
 * The CLI's remote mode (`--server-url`) and `doctor`, against real servers on loopback. The CLI
 * runs in-process through `main`, except one run of the built binary.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

import { main } from '../../src/cli/main.js'
import { buildApp } from '../../src/http/app.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const TOKEN = 'cli-remote-token'
const SCOPE = 'cli:remote'
const dirs: string[] = []
let server: RunningServer
let authServer: RunningServer
let unbound: FastifyInstance
let unboundUrl: string
let newer: Server
let newerUrl: string
let closedUrl: string

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-cli-remote-'))
  dirs.push(dir)
  return dir
}
const urlOf = (s: { address(): unknown }): string =>
  `http://127.0.0.1:${(s.address() as AddressInfo).port}`

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: tempDir(), logLevel: 'silent' })
  authServer = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
    authToken: TOKEN,
  })
  unbound = buildApp({ slot: { current: undefined }, logger: false })
  await unbound.listen({ host: '127.0.0.1', port: 0 })
  unboundUrl = urlOf(unbound.server)
  // A "server" from the future: healthy, but reporting another version.
  newer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    if (req.url === '/health/live') return res.end('{"status":"ok"}')
    if (req.url === '/health/ready') return res.end('{"status":"ready","checks":{}}')
    res.end(JSON.stringify({ version: '9.0.0', search_modes: ['auto'], limits: {} }))
  })
  await new Promise<void>((r) => newer.listen(0, '127.0.0.1', r))
  newerUrl = urlOf(newer)
  const closed = createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  closedUrl = urlOf(closed)
  await new Promise((r) => closed.close(r))
})

afterAll(async () => {
  await server?.stop()
  await authServer?.stop()
  await unbound?.close()
  await new Promise((r) => newer?.close(r))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

beforeEach(() => {
  // Never let the caller's environment pick a server (or the real data directory).
  vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', '')
  vi.stubEnv('POWERCONTEXT_CLIENT_API_TOKEN', '')
  return () => vi.unstubAllEnvs()
})

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(['node', 'powercontext', ...args], {
    out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => (err += t.endsWith('\n') ? t : `${t}\n`),
  })
  return { code, out, err }
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args)
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.out) as T
}

interface WireMemory {
  memory_ref: { artifact_id: string; revision: number }
  state: string
  text: string
}

describe('CLI with --server-url', () => {
  it('runs memory commands through the server', async () => {
    const remote = ['--server-url', server.url]
    const created = await json<{ results: { status: string; memory: WireMemory }[] }>(
      ...remote,
      'remember',
      '--scope',
      SCOPE,
      '--kind',
      'decision',
      'Deploys happen on Tuesdays',
    )
    expect(created.results[0]?.status).toBe('created')
    const id = created.results[0]!.memory.memory_ref.artifact_id

    // The global option also works after the subcommand.
    const search = await cli('search', '--scope', SCOPE, '--server-url', server.url, 'deploys')
    expect(search).toMatchObject({ code: 0, err: '' })
    expect(search.out).toMatch(
      new RegExp(`^1\\. ${id}@1 \\(\\d\\.\\d{4}, fts\\) decision: Deploys`),
    )

    const updated = await json<{ memory: WireMemory }>(
      ...remote,
      'update',
      '--scope',
      SCOPE,
      '--revision',
      '1',
      '--text',
      'Deploys happen on Wednesdays',
      id,
    )
    expect(updated.memory.memory_ref.revision).toBe(2)
    const got = await json<{ memory: WireMemory; current_revision: number }>(
      ...remote,
      'get',
      '--scope',
      SCOPE,
      '--revision',
      '1',
      id,
    )
    expect(got).toMatchObject({
      current_revision: 2,
      memory: { text: 'Deploys happen on Tuesdays' },
    })

    expect((await cli(...remote, 'forget', '--scope', SCOPE, id)).out).toMatch(/^forgotten: /)
    const listed = await json<{ memories: WireMemory[]; next_after: null }>(
      ...remote,
      'list',
      '--scope',
      SCOPE,
      '--state',
      'forgotten',
    )
    expect(listed.memories.map((m) => m.memory_ref.artifact_id)).toEqual([id])
    expect((await cli(...remote, 'restore', '--scope', SCOPE, id)).out).toMatch(/^restored: /)
    const history = await cli(...remote, 'history', '--scope', SCOPE, id)
    expect(history.out.split('\n')[0]).toBe(`${id} [active] at revision 2`)
    const changes = await json<{ head_seq: number }>(...remote, 'changes', '--scope', SCOPE)
    expect(changes.head_seq).toBe(4)
    const scopes = await json<{ scopes: { scope_id: string; counts: Record<string, number> }[] }>(
      ...remote,
      'scopes',
    )
    expect(scopes.scopes.find((s) => s.scope_id === SCOPE)?.counts['active']).toBe(1)
    const context = await json<{ schema: string; status: string; content_bytes: number }>(
      ...remote,
      'context',
      '--scope',
      SCOPE,
      '--max-bytes',
      '4000',
    )
    expect(context.schema).toBe('powercontext.prepared-context.v1')
    expect(context.content_bytes).toBeLessThanOrEqual(4000)
  })

  it('reads the server from POWERCONTEXT_CLIENT_SERVER_URL', async () => {
    vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', server.url)
    const r = await json<{ changes: unknown[] }>('changes', '--scope', SCOPE)
    expect(r.changes.length).toBeGreaterThan(0)
  })

  it('keeps the server error code and request id', async () => {
    const created = await json<{ results: { memory: WireMemory }[] }>(
      '--server-url',
      server.url,
      'remember',
      '--scope',
      SCOPE,
      'Stale writes fail',
    )
    const id = created.results[0]!.memory.memory_ref.artifact_id
    const args = ['update', '--scope', SCOPE, '--revision', '7', '--text', 'x', id]
    const stale = await cli('--server-url', server.url, ...args)
    expect(stale.code).toBe(1)
    expect(stale.err).toMatch(/^error: revision_conflict: .+ \(request [0-9a-f]{16}\)\n$/)
    const asJson = await cli('--json', '--server-url', server.url, ...args)
    expect(JSON.parse(asJson.err)).toMatchObject({
      error: { code: 'revision_conflict', request_id: expect.stringMatching(/^[0-9a-f]{16}$/) },
    })
    const down = await cli('--server-url', closedUrl, 'changes', '--scope', SCOPE)
    expect(down.code).toBe(1)
    expect(down.err).toContain('error: connection_failed: cannot reach')
  })

  it('sends the token from --token or POWERCONTEXT_CLIENT_API_TOKEN', async () => {
    const denied = await cli('--server-url', authServer.url, 'changes', '--scope', SCOPE)
    expect(denied.code).toBe(1)
    expect(denied.err).toMatch(/^error: unauthorized: .+ \(request [0-9a-f]{16}\)\n/)
    expect(denied.err).toContain('POWERCONTEXT_CLIENT_API_TOKEN')
    expect(
      (await cli('--server-url', authServer.url, '--token', TOKEN, 'changes', '--scope', SCOPE))
        .code,
    ).toBe(0)
    vi.stubEnv('POWERCONTEXT_CLIENT_API_TOKEN', TOKEN)
    expect((await cli('--server-url', authServer.url, 'changes', '--scope', SCOPE)).code).toBe(0)
  })

  it('refuses usage errors with exit 2', async () => {
    const admin = await cli('--server-url', server.url, 'admin', 'verify')
    expect(admin).toMatchObject({ code: 2, out: '' })
    expect(admin.err).toBe(
      'error: admin verify works on a local data directory only; drop --server-url\n',
    )
    const both = await cli(
      '--server-url',
      server.url,
      '--data-dir',
      tempDir(),
      'list',
      '--scope',
      SCOPE,
    )
    expect(both.code).toBe(2)
    expect(both.err).toContain('either --server-url or --data-dir')
    expect((await cli('--server-url', 'not a url', 'list', '--scope', SCOPE)).code).toBe(2)
    vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', 'ftp://nowhere')
    const badEnv = await cli('list', '--scope', SCOPE)
    expect(badEnv.code).toBe(2)
    expect(badEnv.err).toContain('POWERCONTEXT_CLIENT_SERVER_URL must be an http(s) URL')
  })
})

describe('powercontext doctor', () => {
  it('passes every check against a healthy server', async () => {
    const r = await cli('doctor', '--server-url', server.url)
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n')
    expect(lines.map((l) => l.split(':')[0])).toEqual([
      'ok   live',
      'ok   ready',
      'ok   auth',
      'ok   capabilities',
      'ok   mcp',
      'ok   models',
      'skip data-dir',
    ])
    expect(lines[3]).toContain('version 0.1.0')
    expect(lines[4]).toMatch(new RegExp(`^ok   mcp: ${server.url}/mcp lists \\d+ tools$`))
    expect(lines[5]).toBe(
      'ok   models: no models configured: search is full-text, flush takes structured sources only',
    )
    expect(lines[6]).toBe(
      'skip data-dir: skipped: memory commands go to the server; pass --data-dir DIR to check one',
    )
    const report = await json<{ ok: boolean; server_url: string; checks: { status: string }[] }>(
      'doctor',
      '--server-url',
      server.url,
    )
    expect(report).toMatchObject({ ok: true, server_url: server.url })
    expect(report.checks.map((c) => c.status)).toEqual([
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'pass',
      'skip',
    ])
  })

  it('explains an unreachable server', async () => {
    const r = await cli('doctor', '--server-url', closedUrl)
    expect(r.code).toBe(1)
    expect(r.out.split('\n')[0]).toBe(
      `FAIL live: server not reachable at ${closedUrl} (ECONNREFUSED); is \`powercontext server run\` running there?`,
    )
    expect(r.out.match(/^skip /gm)).toHaveLength(6)
  })

  it('explains an auth failure, with and without a token', async () => {
    const none = await cli('doctor', '--server-url', authServer.url)
    expect(none.code).toBe(1)
    expect(none.out).toMatch(/^FAIL auth: auth rejected: .*set POWERCONTEXT_CLIENT_API_TOKEN/m)
    const wrong = await cli('doctor', '--server-url', authServer.url, '--token', 'nope')
    expect(wrong.out).toMatch(/^FAIL auth: auth rejected: the server did not accept the token/m)
    const right = await cli('doctor', '--server-url', authServer.url, '--token', TOKEN)
    expect(right.code).toBe(0)
    expect(right.out).toMatch(/^ok {3}auth: token accepted$/m)
  })

  it('explains a server that is not ready, and a version mismatch', async () => {
    const notReady = await cli('doctor', '--server-url', unboundUrl)
    expect(notReady.code).toBe(1)
    expect(notReady.out).toMatch(/^FAIL ready: not ready: runtime=not_ready$/m)
    const mismatch = await cli('doctor', '--server-url', newerUrl)
    expect(mismatch.code).toBe(1)
    expect(mismatch.out).toMatch(
      /^FAIL capabilities: version mismatch: server 9\.0\.0, this CLI 0\.1\.0/m,
    )
  })

  it('explains a configured model that does not answer, and a broken /mcp', async () => {
    const modelDown = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: tempDir(),
      logLevel: 'silent',
      extraction: { generation: { url: closedUrl, model: 'gone-model' } },
    })
    try {
      const r = await cli('doctor', '--server-url', modelDown.url)
      expect(r.code).toBe(1)
      expect(r.out).toMatch(
        /^FAIL models: generation model gone-model unavailable: .+; check POWERCONTEXT_SERVER_GENERATION_URL and _MODEL of the server$/m,
      )
      expect(r.out).toMatch(/^ok {3}ready: degraded but serving: inference\.generation=/m)
    } finally {
      await modelDown.stop()
    }
    // The server from the future answers every path with JSON, /mcp included.
    const mcp = await cli('doctor', '--server-url', newerUrl)
    expect(mcp.out).toMatch(
      new RegExp(`^FAIL mcp: ${newerUrl}/mcp did not answer tools/list: `, 'm'),
    )
  })

  it('checks the local data directory: missing, a database, an empty or foreign file', async () => {
    const dir = tempDir()
    const dataDirLine = async (d: string): Promise<string> => {
      const r = await cli('--data-dir', d, 'doctor')
      return r.out.split('\n').find((l) => l.slice(5).startsWith('data-dir:')) ?? r.out
    }
    const fresh = join(dir, 'new')
    expect(await dataDirLine(fresh)).toBe(
      `ok   data-dir: ${fresh} does not exist yet (created at first use)`,
    )
    const used = join(dir, 'used')
    expect((await cli('--data-dir', used, 'remember', '--scope', SCOPE, 'a fact')).code).toBe(0)
    expect(await dataDirLine(used)).toMatch(
      new RegExp(`^ok   data-dir: ${used} \\(${used}/powercontext\\.db, \\d+\\.\\d MiB\\)$`),
    )
    const empty = join(dir, 'empty')
    mkdirSync(empty)
    writeFileSync(join(empty, 'powercontext.db'), '')
    expect(await dataDirLine(empty)).toBe(
      `FAIL data-dir: ${empty}/powercontext.db is empty (0 bytes), not a database; restore it from a backup, or remove it to start a new empty store`,
    )
    const foreign = join(dir, 'foreign')
    mkdirSync(foreign)
    writeFileSync(join(foreign, 'powercontext.db'), 'not a database at all')
    expect(await dataDirLine(foreign)).toMatch(/^FAIL data-dir: .* is not a SQLite database/)
    const file = join(dir, 'a-file')
    writeFileSync(file, 'x')
    expect(await dataDirLine(file)).toMatch(/^FAIL data-dir: .* is not a directory/)
    const db = await cli('--database', 'mysql://u@127.0.0.1:1/x', 'doctor')
    expect(db.out).toMatch(/^skip data-dir: skipped: --database names a MySQL-protocol database$/m)
  })

  it('runs from the built binary with the server from the environment', async () => {
    const run = promisify(execFile)
    const { stdout } = await run(process.execPath, [BIN, '--json', 'doctor'], {
      env: { ...process.env, POWERCONTEXT_CLIENT_SERVER_URL: server.url },
    })
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, server_url: server.url })
  })
})
