import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const DIST = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'pc-server-'))

function startCli(args: string[]): {
  child: ChildProcess
  stderr: () => string
  exited: Promise<number | null>
} {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()))
  child.stdout?.resume()
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, stderr: () => err, exited }
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
  })

  it('exits non-zero with a clear message when the runtime cannot open', async () => {
    const server = startCli(['server', 'run', '--port', '0', '--data-dir', '/etc/passwd/not-a-dir'])
    expect(await server.exited).toBe(1)
    expect(server.stderr()).toMatch(/error: internal_error: cannot open SQLite database/)
    expect(server.stderr()).not.toMatch(/listening/)
  })
})
