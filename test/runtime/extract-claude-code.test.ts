/**
 * Extraction with the real `claude` CLI (the `claude-code` provider) against a loopback Anthropic
 * Messages server: the call carries the window's sources and the related memories, no hook fires
 * inside it (ours and a foreign one are registered at user and project level, and a control run
 * shows they do fire in a normal run), its JSON is applied, the budget stops it and it resumes,
 * a missing or logged-out CLI degrades readiness, a timeout leaves the window pending.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { ExtractionOptions } from '../../src/runtime/extraction.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { AnthropicMessagesServer } from '../support/anthropic-messages-server.js'
import type { HookedHome } from '../support/host-extraction.js'
import { CLAUDE_BIN, failureOf, hookedHome, HookSink } from '../support/host-extraction.js'

const server = new AnthropicMessagesServer()
const sink = new HookSink()
let url = ''
let home: HookedHome
const dirs: string[] = []

beforeAll(async () => {
  url = await server.listen()
  home = await hookedHome('claude-code', await sink.listen())
})
afterAll(async () => {
  await server.close()
  await sink.close()
  home.cleanup()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const hostEnv = (): Record<string, string> => ({
  HOME: home.home,
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: 'sk-test',
})

async function open(extraction: ExtractionOptions): Promise<MemoryRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pc-extract-claude-'))
  dirs.push(dataDir)
  return MemoryRuntime.open({ dataDir, extraction })
}

const claude = (settings: Record<string, unknown> = {}): ExtractionOptions['host'] => ({
  kind: 'claude-code',
  settings: { command: CLAUDE_BIN, env: hostEnv(), ...settings },
})

const PNPM = 'Package manager: pnpm, not npm (the lockfile is pnpm-lock.yaml).'

/**
 * Answers the one propose call with a candidate per source and the one decide call with a decision
 * per candidate: an update of its first related memory, or a create when it has none.
 */
function scriptedModel(): void {
  server.responder = (r) => {
    const user = JSON.parse(r.userText) as {
      sources?: { source_id: string; content: string }[]
      candidates?: { id: string; related: string[] }[]
    }
    if (user.sources !== undefined)
      return {
        json: {
          candidates: user.sources.map((s) => ({
            kind: 'preference',
            text: PNPM,
            evidence: [s.source_id],
            observed_at: null,
            reason: null,
          })),
        },
      }
    return {
      json: {
        decisions: (user.candidates ?? []).map((c) => {
          const target = c.related[0]
          return target === undefined
            ? {
                candidate: c.id,
                action: 'create',
                targets: [],
                kind: null,
                text: null,
                reason: null,
              }
            : {
                candidate: c.id,
                action: 'update',
                targets: [target],
                kind: null,
                text: PNPM,
                reason: 'newer',
              }
        }),
      },
    }
  }
}

describe('extraction with the real claude CLI', () => {
  it('the hooks registered here do fire in a normal claude -p run (control)', async () => {
    home.reset()
    const run = await new Promise<number | null>((resolve) => {
      const c = spawn(CLAUDE_BIN, ['-p', 'hello'], {
        cwd: home.project,
        env: { ...process.env, ...hostEnv(), CLAUDE_CODE_MAX_RETRIES: '0' },
        stdio: ['ignore', 'ignore', 'ignore'],
      })
      c.on('close', resolve)
    })
    expect(run).toBe(0)
    expect(home.fired()).toBe(true)
    expect(sink.paths.length).toBeGreaterThan(0)
    // The Stop hook's detached worker posts after the host exited: let it land here.
    await sink.settle()
  })

  it('one window: sources and related memories go to the model, no hook fires, the JSON is applied, usage is recorded', async () => {
    home.reset()
    sink.paths.length = 0
    server.requests.length = 0
    scriptedModel()
    const rt = await open({ host: claude() })
    try {
      const scopeId = 'project:claude-extract'
      const [old] = (
        await rt.remember({
          scopeId,
          entries: [{ kind: 'preference', text: 'Package manager: npm.' }],
        })
      ).results
      await rt.captureSource({
        scopeId,
        sourceId: 'p1',
        content: 'Use pnpm, not npm, in this repository.',
        metadata: { event: 'user_prompt_submit' },
      })
      const r = await rt.flush({ scopeId })
      expect(r.status).toBe('processed')
      const asked = server.structuredRequests
      expect(asked).toHaveLength(2)
      expect(asked[0]?.userText).toContain('Use pnpm, not npm, in this repository.')
      expect(asked[1]?.userText).toContain('Package manager: npm.')
      expect(asked.every((q) => q.tools.includes('StructuredOutput'))).toBe(true)
      expect(asked.flatMap((q) => q.tools).filter((t) => /^mcp__|^Bash$|^Edit$/.test(t))).toEqual(
        [],
      )
      expect(home.fired()).toBe(false)
      expect(sink.paths).toEqual([])
      const current = await rt.get({ scopeId, memoryId: old!.memory.memoryRef.artifactId })
      expect(current.memory.text).toBe(PNPM)
      const [record] = (await rt.flushRecords({ scopeId })).records
      const usage = record?.details['model_usage'] as Record<string, number>
      expect(usage['calls']).toBe(2)
      expect(usage['input_tokens']).toBeGreaterThan(0)
      expect(usage['output_tokens']).toBeGreaterThan(0)
      expect(rt.stats().extraction?.calls).toBe(2)
      expect(rt.capabilities().extraction.provider).toBe('claude-code')
    } finally {
      await rt.close()
    }
  })

  it('a spent budget leaves the sources pending and says until when; the next day it resumes', async () => {
    scriptedModel()
    let now = Date.parse('2026-12-06T10:00:00Z')
    const rt = await open({ host: claude(), budget: { callsPerDay: 2 }, clock: () => now })
    try {
      const scopeId = 'project:claude-budget'
      await rt.captureSource({ scopeId, sourceId: 'b1', content: 'Always run make docs-test.' })
      expect((await rt.flush({ scopeId })).cursor).toBe(1)
      await rt.captureSource({ scopeId, sourceId: 'b2', content: 'Never edit site/ by hand.' })
      const err = await failureOf(rt.flush({ scopeId }))
      expect(err.code).toBe('inference_unavailable')
      expect(err.message).toMatch(/^extraction paused: budget spent until /)
      expect(err.details?.['reason']).toBe('budget_spent')
      expect((await rt.flushRecords({ scopeId })).records).toHaveLength(1)
      const ready = await rt.readiness()
      expect(ready.status).toBe('degraded')
      expect(ready.checks['inference.generation']).toMatch(
        /^extraction paused: budget spent until /,
      )
      expect(rt.capabilities().extraction.budget?.pausedReason).toBe('budget_spent')
      expect((await rt.pendingScopes()).includes(scopeId)).toBe(true)
      now += 24 * 3600_000
      const r = await rt.flush({ scopeId })
      expect(r.status).toBe('processed')
      expect(r.cursor).toBe(2)
      expect(rt.capabilities().extraction.budget?.pausedUntil).toBeNull()
    } finally {
      await rt.close()
    }
  })

  it('a rate-limit answer pauses extraction at once (one request, no retry loop)', async () => {
    server.requests.length = 0
    server.responder = () => ({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'rate limited' } },
    })
    const rt = await open({ host: claude() })
    try {
      const scopeId = 'project:claude-429'
      await rt.captureSource({ scopeId, sourceId: 'r1', content: 'Never edit site/.' })
      const err = await failureOf(rt.flush({ scopeId }))
      expect(err.code).toBe('inference_unavailable')
      expect(server.structuredRequests).toHaveLength(1)
      expect(rt.capabilities().extraction.budget?.pausedReason).toBe('rate_limited')
      const again = await failureOf(rt.flush({ scopeId }))
      expect(again.message).toMatch(/^extraction paused: the model provider rate-limited it until /)
      expect(server.structuredRequests).toHaveLength(1)
      expect((await rt.pendingScopes()).includes(scopeId)).toBe(true)
    } finally {
      await rt.close()
    }
  })

  it('a timeout kills the run and leaves the window pending', async () => {
    server.responder = () => ({ json: { candidates: [] }, delayMs: 20_000 })
    const rt = await open({ host: claude({ timeoutMs: 3_000 }) })
    try {
      const scopeId = 'project:claude-timeout'
      await rt.captureSource({ scopeId, sourceId: 't1', content: 'Slow.' })
      const err = await failureOf(rt.flush({ scopeId }))
      expect(err.code).toBe('inference_timeout')
      expect((await rt.pendingScopes()).includes(scopeId)).toBe(true)
    } finally {
      await rt.close()
    }
  })

  it('a missing or logged-out CLI degrades readiness with a clear message', async () => {
    const missing = await open({ host: claude({ command: '/nonexistent/claude' }) })
    const loggedOut = await open({
      host: claude({
        env: { HOME: mkdtempSync(join(tmpdir(), 'pc-empty-home-')), ANTHROPIC_API_KEY: '' },
      }),
    })
    try {
      const a = await missing.readiness()
      expect(a.status).toBe('degraded')
      expect(a.checks['inference.generation']).toBe(
        'unavailable: /nonexistent/claude not found (install it or put it on PATH)',
      )
      const b = await loggedOut.readiness()
      expect(b.status).toBe('degraded')
      expect(b.checks['inference.generation']).toMatch(
        /^unavailable: .*claude is not logged in \(run `claude auth login`\)$/,
      )
    } finally {
      await missing.close()
      await loggedOut.close()
    }
  })
})
