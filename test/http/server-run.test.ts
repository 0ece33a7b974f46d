import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { getPriority, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const DIST = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'pc-server-'))

function startCli(
  args: string[],
  env: Record<string, string> = {},
): {
  child: ChildProcess
  stderr: () => string
  stdout: () => string
  exited: Promise<number | null>
} {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let err = ''
  let out = ''
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, stderr: () => err, stdout: () => out, exited }
}

async function waitFor<T>(probe: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const v = probe()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error('timed out waiting for the server')
    await new Promise((r) => setTimeout(r, 50))
  }
}

beforeAll(() => {
  if (!existsSync(DIST)) throw new Error('dist/ is missing: run npm run build first')
})
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('powercontext server run', () => {
  it('serves health on the embedded default and stops cleanly on SIGTERM', async () => {
    const server = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir])
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(server.stderr())?.[1])
    const live = await fetch(`${url}/health/live`)
    expect(live.status).toBe(200)
    expect(await live.json()).toEqual({ status: 'ok' })
    expect(live.headers.get('x-powercontext-request-id')).toMatch(/^[0-9a-f]{16}$/)
    const ready = await fetch(`${url}/health/ready`, {
      headers: { 'X-PowerContext-Request-ID': 'trace:42' },
    })
    expect(ready.status).toBe(200)
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ready' } })
    expect(ready.headers.get('x-powercontext-request-id')).toBe('trace:42')
    const unsafe = await fetch(`${url}/health/live`, {
      headers: { 'X-PowerContext-Request-ID': 'bad id!' },
    })
    expect(unsafe.headers.get('x-powercontext-request-id')).toMatch(/^[0-9a-f]{16}$/)
    expect(existsSync(join(dataDir, 'powercontext.db'))).toBe(true)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    await expect(fetch(`${url}/health/live`)).rejects.toThrow()
    // stdout is not a terminal: JSON lines, the shutdown among them.
    const logged = server
      .stdout()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { msg: string; signal?: string })
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'shutdown: signal received', signal: 'SIGTERM' }),
    )
    expect(logged.map((l) => l.msg)).toContain('shutdown: complete')
  })

  // Per-thread nice values are read from /proc: Linux only.
  it.skipIf(!existsSync('/proc/self/task'))(
    'runs its background threads below the event loop (Linux: thread nice values)',
    async () => {
      const server = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir])
      await waitFor(() => /listening on (http:\/\/\S+)/.exec(server.stderr())?.[1])
      const pid = server.child.pid!
      // Field 19 of a thread's stat is its nice value (fields counted after the command name).
      const nice = (tid: string) =>
        Number(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16])
      const main = nice(String(pid))
      const others = readdirSync(`/proc/${pid}/task`)
        .filter((tid) => tid !== String(pid))
        .map(nice)
      expect(main).toBe(getPriority(process.pid))
      // V8's helper threads (four by default) and libuv's pool: ten lower, or the lowest there is.
      const lowered = others.filter((n) => n === Math.min(19, main + 10))
      expect(lowered.length).toBeGreaterThanOrEqual(4)
      server.child.kill('SIGTERM')
      expect(await server.exited).toBe(0)
    },
  )

  it('refuses an unknown log format as a usage error', async () => {
    const server = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir], {
      POWERCONTEXT_SERVER_LOG_FORMAT: 'xml',
    })
    expect(await server.exited).toBe(2)
    expect(server.stderr()).toMatch(/must be one of auto, json, pretty/)
  })

  it('exits non-zero with a clear message when the runtime cannot open', async () => {
    const server = startCli(['server', 'run', '--port', '0', '--data-dir', '/etc/passwd/not-a-dir'])
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toMatch(/error: internal_error: cannot open SQLite database/)
    expect(server.stderr()).not.toMatch(/listening/)
  })

  it('rejects connection limits that are not whole numbers or do not fit together', async () => {
    const env = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir], {
      POWERCONTEXT_SERVER_MAX_CONNECTIONS: 'lots',
    })
    expect(await env.exited).toBe(2)
    expect(env.stderr()).toMatch(/POWERCONTEXT_SERVER_MAX_CONNECTIONS must be a whole number/)
    const flags = startCli([
      'server',
      'run',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--request-timeout-ms',
      '1000',
      '--headers-timeout-ms',
      '2000',
    ])
    expect(await flags.exited).toBe(1)
    expect(flags.stderr()).toMatch(
      /error: invalid_request: the headers timeout \(2000 ms\) must not exceed the request timeout \(1000 ms\)/,
    )
  })

  it('rejects a vector graph threshold that is not a whole number', async () => {
    const bad = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir], {
      POWERCONTEXT_SERVER_VECTOR_GRAPH_MIN: 'lots',
    })
    expect(await bad.exited).toBe(2)
    expect(bad.stderr()).toMatch(/POWERCONTEXT_SERVER_VECTOR_GRAPH_MIN must be a whole number/)
    const flag = startCli(['server', 'run', '--port', '0', '--vector-graph-min', '-1'])
    expect(await flag.exited).toBe(2)
  })

  it('refuses a non-loopback address without a token unless --insecure-no-auth', async () => {
    const refused = startCli([
      'server',
      'run',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--data-dir',
      dataDir,
    ])
    expect(await refused.exited).toBe(1)
    expect(refused.stderr()).toMatch(/refusing to listen on non-loopback address 0\.0\.0\.0/)
    const allowed = startCli([
      'server',
      'run',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--insecure-no-auth',
    ])
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(allowed.stderr())?.[1])
    const port = new URL(url).port
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200)
    allowed.child.kill('SIGINT')
    expect(await allowed.exited).toBe(0)
  })

  it('requires the bearer token from POWERCONTEXT_SERVER_AUTH_TOKEN on API routes only', async () => {
    const server = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir], {
      POWERCONTEXT_SERVER_AUTH_TOKEN: 's3cret',
    })
    const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(server.stderr())?.[1])
    expect((await fetch(`${url}/health/ready`)).status).toBe(200)
    const denied = await fetch(`${url}/v1/capabilities`)
    expect(denied.status).toBe(401)
    expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(await denied.json()).toMatchObject({ error: { code: 'unauthorized' } })
    const wrong = await fetch(`${url}/v1/capabilities`, {
      headers: { Authorization: 'Bearer nope' },
    })
    expect(wrong.status).toBe(401)
    const ok = await fetch(`${url}/v1/capabilities`, {
      headers: { Authorization: 'bearer s3cret' },
    })
    expect(ok.status).toBe(200)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
  })

  it('refuses a blank or padded POWERCONTEXT_SERVER_AUTH_TOKEN at startup', async () => {
    for (const token of ['   ', ' s3cret', 's3cret\n', '\ts3cret\t', 's3c\u0001ret']) {
      const server = startCli(['server', 'run', '--port', '0', '--data-dir', dataDir], {
        POWERCONTEXT_SERVER_AUTH_TOKEN: token,
      })
      const listening = waitFor(() => (/listening/.test(server.stderr()) ? 'listening' : undefined))
      const outcome = await Promise.race([server.exited, listening.catch(() => 'no exit')])
      if (server.child.exitCode === null) server.child.kill('SIGKILL')
      expect(outcome).toBe(1)
      expect(server.stderr()).toMatch(
        /^error: invalid_request: POWERCONTEXT_SERVER_AUTH_TOKEN (is blank|starts or ends with whitespace or holds a control character): no client could present it/,
      )
      expect(server.stderr()).not.toMatch(/listening/)
      expect(server.stderr()).not.toContain('s3c')
    }
  })
})
