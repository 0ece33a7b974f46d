/**
 * Receipts on a real SQLite file and a real server: a prepare that names its host, session and
 * event records exactly the refs it injected (never text), plain API use records nothing, a bad
 * receipt writes nothing; the brief prefers standing memories sessions were given over newer ones
 * (a recorded multi-session workflow); retention prunes; `context log` and `/metrics` show them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { main } from '../../src/cli/main.js'
import { PowerContextError } from '../../src/core/errors.js'
import type { ArtifactRef } from '../../src/core/memory-model.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'

const dirs: string[] = []
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-receipts-'))
  dirs.push(dir)
  return dir
}
const dataDir = tempDir()
let rt: MemoryRuntime
let server: RunningServer
let n = 0
const scope = (name: string) => `receipts:${name}:${++n}`
const receipt = (sessionId: string, event = 'session_start') => ({
  host: 'claude-code',
  sessionId,
  event,
})

beforeAll(async () => {
  rt = await MemoryRuntime.open({ dataDir, receiptRetention: { keepDays: 30 } })
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir: tempDir(), logLevel: 'silent' })
})
afterAll(async () => {
  await server?.stop()
  await rt.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function remember(scopeId: string, kind: string, text: string) {
  await sleep(2) // one millisecond stamp per write, so "newest first" is well defined
  const { results } = await rt.remember({ scopeId, entries: [{ kind, text }] })
  return results[0]!.memory
}
const refsOf = (r: { items: readonly { memoryRef: ArtifactRef }[] }) =>
  r.items.map((i) => i.memoryRef)

async function cli(...args: string[]): Promise<{ code: number; out: string }> {
  let out = ''
  const io = { out: (t: string) => void (out += `${t}\n`), err: () => undefined }
  const code = await main(['node', 'powercontext', ...args], io)
  return { code, out }
}

describe('recording', () => {
  it('records the refs a hook prepare gave, and nothing for plain API use', async () => {
    const s = scope('record')
    const rule = await remember(s, 'constraint', 'Never push to main.')
    const fact = await remember(s, 'fact', 'The payments service retries three times.')
    await rt.prepareContext({ scopeId: s }) // no receipt: plain API use
    expect((await rt.contextReceipts({ scopeId: s })).receipts).toEqual([])

    const brief = await rt.prepareContext({ scopeId: s, receipt: receipt('sess-1') })
    const recall = await rt.prepareContext({
      scopeId: s,
      query: 'payments retries',
      maxBytes: 768,
      excludeRefs: refsOf(brief),
      receipt: receipt('sess-1', 'user_prompt_submit'),
    })
    const page = await rt.contextReceipts({ scopeId: s, sessionId: 'sess-1' })
    expect(page.receipts.map((r) => [r.event, r.kind, refsOf(r)])).toEqual([
      ['user_prompt_submit', 'recall', [fact.memoryRef]],
      ['session_start', 'brief', [rule.memoryRef]],
    ])
    const [second, first] = page.receipts
    expect(first).toMatchObject({
      host: 'claude-code',
      scopeIds: [s],
      status: 'ready',
      maxBytes: 8000,
      contentBytes: brief.contentBytes,
      tokenEstimate: Math.ceil(brief.contentBytes / 4),
      withinBudget: true,
    })
    expect(second!.contentBytes).toBe(recall.contentBytes)
    expect(JSON.stringify(page)).not.toContain('Never push')
    const usage = await rt.contextReceipts({ scopeId: s, memoryId: rule.memoryRef.artifactId })
    expect(usage.usage).toMatchObject({ injections: 1, sessions: 1 })
  })

  it('marks a prepare that had to cut an item to fit as not within budget', async () => {
    const s = scope('budget')
    await remember(s, 'constraint', `Long rule: ${'keep the ledger append-only; '.repeat(40)}`)
    const r = await rt.prepareContext({ scopeId: s, maxBytes: 800, receipt: receipt('sess-b') })
    expect(r.items[0]!.truncated).toBe(true)
    const [got] = (await rt.contextReceipts({ scopeId: s })).receipts
    expect(got!.withinBudget).toBe(false)
  })

  it('refuses a bad receipt with invalid_request and records nothing', async () => {
    const s = scope('bad')
    await remember(s, 'constraint', 'Never push to main.')
    for (const bad of [
      { host: 'Claude Code', sessionId: 's', event: 'session_start' },
      { host: 'codex', sessionId: 'with space', event: 'session_start' },
      { host: 'codex', sessionId: 's', event: '' },
    ]) {
      const err = await rt.prepareContext({ scopeId: s, receipt: bad }).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(PowerContextError)
      expect((err as PowerContextError).code).toBe('invalid_request')
    }
    expect((await rt.contextReceipts({ scopeId: s })).receipts).toEqual([])
    const cursor = await rt.contextReceipts({ scopeId: s, before: 'nope' }).catch((e: unknown) => e)
    expect((cursor as PowerContextError).code).toBe('invalid_request')
  })
})

describe('the brief over a recorded multi-session workflow', () => {
  it('keeps what the user stated early and sessions were given, unless forgotten or corrected', async () => {
    const s = scope('workflow')
    const early = await remember(s, 'constraint', 'Never log card numbers; mask all but four.')
    const corrected = await remember(s, 'constraint', 'Use Node 18 for the build.')
    const dropped = await remember(s, 'constraint', 'Deploy on Fridays only.')
    // Sessions 1 and 2 are given the brief (all three).
    for (const session of ['s1', 's2']) {
      const brief = await rt.prepareContext({ scopeId: s, receipt: receipt(session) })
      expect(refsOf(brief)).toEqual(
        expect.arrayContaining([early.memoryRef, corrected.memoryRef, dropped.memoryRef]),
      )
    }
    // Then the user corrects one, forgets one, and twenty newer constraints are stated.
    await rt.update({ scopeId: s, memoryRef: corrected.memoryRef, text: 'Use Node 22.' })
    await rt.forget({ scopeId: s, memoryId: dropped.memoryRef.artifactId })
    for (let i = 0; i < 20; i++) await remember(s, 'constraint', `New rule ${i} for module ${i}.`)

    const third = refsOf(await rt.prepareContext({ scopeId: s, receipt: receipt('s3') }))
    expect(third).toHaveLength(8)
    expect(third[0]).toEqual(early.memoryRef) // standing: given to two sessions, unchanged
    const ids = third.map((r) => r.artifactId)
    expect(ids).not.toContain(dropped.memoryRef.artifactId) // forgotten
    // The corrected one is a new version no session was given: it competes as a new memory.
    expect(third).not.toContainEqual(corrected.memoryRef)

    // Without receipts the same memories leave the early rule out: twenty newer ones fill the brief.
    const plain = scope('workflow-plain')
    const alone = await remember(plain, 'constraint', 'Never log card numbers; mask all but four.')
    for (let i = 0; i < 20; i++)
      await remember(plain, 'constraint', `New rule ${i} for module ${i}.`)
    const control = refsOf(await rt.prepareContext({ scopeId: plain }))
    expect(control).not.toContainEqual(alone.memoryRef)
  })
})

describe('retention', () => {
  it('prunes the oldest receipts beyond the count', async () => {
    const dir = tempDir()
    const small = await MemoryRuntime.open({ dataDir: dir, receiptRetention: { keepCount: 2 } })
    try {
      const s = scope('retention')
      await small.remember({ scopeId: s, entries: [{ kind: 'constraint', text: 'One rule.' }] })
      for (const session of ['a', 'b', 'c', 'd'])
        await small.prepareContext({ scopeId: s, receipt: receipt(session) })
      expect(await small.receipts.prune()).toBe(2)
      const left = await small.contextReceipts({ scopeId: s })
      expect(left.receipts.map((r) => r.sessionId)).toEqual(['d', 'c'])
    } finally {
      await small.close()
    }
  })
})

describe('reading them', () => {
  it('`context log` prints a session’s receipts locally and through a server', async () => {
    const s = scope('cli')
    const rule = await remember(s, 'constraint', 'Never push to main.')
    await rt.prepareContext({ scopeId: s, receipt: receipt('cli-1') })
    await rt.receipts.settle()
    const local = await cli(
      '--data-dir',
      dataDir,
      'context',
      'log',
      '--scope',
      s,
      '--session',
      'cli-1',
    )
    expect(local.code).toBe(0)
    expect(local.out).toContain('claude-code  cli-1  session_start  brief  1 item(s)')
    expect(local.out).toContain(`    ${rule.memoryRef.artifactId}@1`)
    expect(local.out).not.toContain('Never push')

    const remembered = (await post('/v1/memory/remember', {
      scope_id: s,
      entries: [{ kind: 'constraint', text: 'Rule.' }],
    })) as { results: { memory: { memory_ref: { artifact_id: string } } }[] }
    const memoryId = remembered.results[0]!.memory.memory_ref.artifact_id
    await post('/v1/context/prepare', {
      scope_id: s,
      receipt: { host: 'codex', session_id: 'cli-2', event: 'session_start' },
    })
    const url = server.url
    const remote = await cli(
      '--server-url',
      url,
      '--json',
      'context',
      'log',
      '--scope',
      s,
      '--memory',
      memoryId,
    )
    expect(JSON.parse(remote.out)).toMatchObject({
      receipts: [{ host: 'codex', session_id: 'cli-2', kind: 'brief' }],
      usage: { injections: 1, sessions: 1 },
    })
    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toMatch(/powercontext_prepare_injected_bytes_count\{event="session_start"\} 1/)
    expect(metrics).toMatch(/powercontext_prepare_items_sum\{event="session_start"\} 1/)
    expect(metrics).toMatch(
      /powercontext_prepare_duration_seconds_count\{event="session_start"\} 1/,
    )
  })
})

/** A POST to the server; the JSON answer. */
async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}
