/**
 * The Python client (`clients/python/`) against real servers on loopback: starts a server with a
 * scripted OpenAI-compatible generation model (the one external API that cannot be reached from
 * here, faked as a local HTTP server), a server with a bearer token and an unbound app, then runs
 * the client's `unittest` suite with python3 and fails on any failure, error or skip.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/http/app.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { ChatServer, decision, proposal } from '../support/chat-server.js'

const CLIENT_DIR = fileURLToPath(new URL('../../clients/python', import.meta.url))
const TOKEN = 'python-client-token'
const chat = new ChatServer()
const dirs: string[] = []
let server: RunningServer
let authServer: RunningServer
let damageServer: RunningServer
let unbound: FastifyInstance
let unboundUrl: string

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-python-'))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  const model = await chat.listen()
  // The model answers by markers in the captured text (see clients/python/tests/test_client.py).
  chat.responder = (req) => {
    if (req.schemaName === 'memory_decision') return decision('create')
    const sources = (req.user['sources'] ?? []) as { source_id: string; content: string }[]
    const text = sources.map((s) => s.content).join(' ')
    if (text.includes('[[invalid]]')) return { content: '{"candidates": "nope"}' }
    if (text.includes('[[slow-model]]')) return { ...proposal(), delayMs: 4000 }
    if (text.includes('[[down]]')) return { status: 429 }
    const answer = proposal(
      ...sources.map((s) => ({ text: `Noted: ${s.content}`, evidence: [s.source_id] })),
    )
    return text.includes('[[hang]]') ? { ...answer, delayMs: 1500 } : answer
  }
  const dataDir = tempDir()
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    extraction: {
      generation: { url: model, model: 'scripted', timeoutMs: 3000, maxRequests: 1 },
      // A 429 pauses extraction for the whole server (a minute by default); the suite's `[[down]]`
      // case would hold back every later flush, so the pause here ends within a millisecond.
      budget: { backoffMs: 1 },
    },
  })
  authServer = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
    authToken: TOKEN,
  })
  damageServer = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    logLevel: 'silent',
  })
  unbound = buildApp({ slot: { current: undefined }, logger: false })
  await unbound.listen({ host: '127.0.0.1', port: 0 })
  unboundUrl = `http://127.0.0.1:${(unbound.server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await server?.stop()
  await authServer?.stop()
  await damageServer?.stop()
  await unbound?.close()
  await chat.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function unittest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      cwd: CLIENT_DIR,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, output }))
  })
}

describe('python client', () => {
  it('passes its unittest suite against live servers: every test run, none skipped', async () => {
    const { code, output } = await unittest({
      POWERCONTEXT_TEST_SERVER_URL: server.url,
      POWERCONTEXT_TEST_SERVER_DB: join(dirs[0] as string, 'powercontext.db'),
      POWERCONTEXT_TEST_DAMAGE_URL: damageServer.url,
      POWERCONTEXT_TEST_DAMAGE_DB: join(dirs[2] as string, 'powercontext.db'),
      POWERCONTEXT_TEST_AUTH_URL: authServer.url,
      POWERCONTEXT_TEST_AUTH_TOKEN: TOKEN,
      POWERCONTEXT_TEST_UNBOUND_URL: unboundUrl,
      POWERCONTEXT_CLIENT_SERVER_URL: '',
      POWERCONTEXT_CLIENT_API_TOKEN: '',
    })
    if (process.env['PC_DEBUG_PY'] === '1') process.stdout.write(output)
    if (code !== 0) throw new Error(`python3 -m unittest failed (exit ${code}):\n${output}`)
    const ran = /Ran (\d+) tests?/.exec(output)
    expect(Number(ran?.[1])).toBeGreaterThanOrEqual(14)
    expect(output).toMatch(/\nOK\n/)
    expect(output).not.toMatch(/skipped/i)
    // The timed-out flush reached the model exactly once: the client sent it once, never again.
    const hang = chat.requests.filter(
      (r) => r.schemaName !== 'memory_decision' && JSON.stringify(r.user).includes('[[hang]]'),
    )
    expect(hang).toHaveLength(1)
  }, 120_000)
})
