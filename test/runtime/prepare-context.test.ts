/**
 * Prepared context through the runtime on a real SQLite file (docs/agents.md): recall for a query, the
 * session-start brief, several scopes ranked together and de-duplicated, validation, and that a
 * flush waiting on a slow generation model does not delay it (no write lock).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import { PREPARED_CONTEXT_BEGIN } from '../../src/core/prepared-context.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { ChatServer, proposal } from '../support/chat-server.js'

const dir = mkdtempSync(join(tmpdir(), 'pc-prepare-'))
const chat = new ChatServer()
let rt: MemoryRuntime
let n = 0
const scope = (name: string) => `prepare:${name}:${++n}`

beforeAll(async () => {
  const url = await chat.listen()
  rt = await MemoryRuntime.open({
    dataDir: dir,
    extraction: { generation: { url, model: 'scripted', maxRequests: 1 } },
  })
})
afterAll(async () => {
  await rt.close()
  await chat.close()
  rmSync(dir, { recursive: true, force: true })
})

async function remember(scopeId: string, kind: string, text: string) {
  await sleep(3) // one millisecond stamp per write, so "newest first" is well defined
  const { results } = await rt.remember({ scopeId, entries: [{ kind, text }] })
  return results[0]!.memory
}
const items = (content: string | null) => {
  const lines = (content ?? '').split('\n')
  const json = lines[lines.indexOf(PREPARED_CONTEXT_BEGIN) + 1]!
  return (JSON.parse(json) as { items: Record<string, unknown>[] }).items
}
async function expectInvalid(promise: Promise<unknown>, field: string) {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PowerContextError)
  expect((err as PowerContextError).code).toBe('invalid_request')
  expect((err as PowerContextError).message).toContain(field)
}

describe('prepare context', () => {
  it('recalls the memories a search finds, citing their exact versions', async () => {
    const s = scope('recall')
    const gateway = await remember(
      s,
      'fact',
      'The gateway retries idempotent requests three times.',
    )
    await remember(s, 'fact', 'Release notes live in docs/releases.')
    const { memory: v2 } = await rt.update({
      scopeId: s,
      memoryRef: gateway.memoryRef,
      text: 'The gateway retries idempotent requests five times.',
    })
    const r = await rt.prepareContext({ scopeId: s, query: 'how often does the gateway retry?' })
    expect(r.status).toBe('ready')
    expect(r.contentBytes).toBe(Buffer.byteLength(r.content!, 'utf8'))
    expect(items(r.content)[0]).toEqual({
      citation: { artifact_id: v2.memoryRef.artifactId, revision: 2 },
      content: 'The gateway retries idempotent requests five times.',
      truncated: false,
    })
    const search = await rt.search({ scopeId: s, query: 'how often does the gateway retry?' })
    expect(r.items.map((i) => i.memoryRef)).toEqual(search.hits.map((h) => h.memoryRef))

    const none = await rt.prepareContext({ scopeId: s, query: 'zebra unicorn' })
    expect(none).toMatchObject({ status: 'empty', content: null, contentBytes: 0 })
  })

  it('without a query: active constraints, preferences and decisions, newest first', async () => {
    const s = scope('brief')
    const rule = await remember(s, 'constraint', 'Never push directly to main.')
    await remember(s, 'fact', 'CI takes six minutes.')
    const pnpm = await remember(s, 'decision', 'Use pnpm, not npm.')
    const tabs = await remember(s, 'preference', 'Tabs for indentation.')
    await rt.forget({ scopeId: s, memoryId: tabs.memoryRef.artifactId })
    await sleep(3)
    const { memory: rule2 } = await rt.update({
      scopeId: s,
      memoryRef: rule.memoryRef,
      text: 'Never push directly to main; open a pull request.',
    })
    const r = await rt.prepareContext({ scopeId: s })
    expect(items(r.content).map((i) => i['citation'])).toEqual([
      { artifact_id: rule2.memoryRef.artifactId, revision: 2 },
      { artifact_id: pnpm.memoryRef.artifactId, revision: 1 },
    ])
    expect((await rt.prepareContext({ scopeId: scope('nothing') })).status).toBe('empty')
  })

  it('reads extra scopes together: ranked with the project, de-duplicated, named', async () => {
    const project = scope('project')
    const user = scope('user')
    await remember(project, 'fact', 'Deploys run through the release pipeline on Fridays.')
    await remember(user, 'preference', 'Alice reviews deploys on Friday mornings.')
    // The same text in both scopes is shown once, from the project.
    const shared = await remember(project, 'decision', 'Deploy freeze during the holidays.')
    await remember(user, 'decision', 'Deploy freeze during the holidays.')

    const r = await rt.prepareContext({
      scopeId: project,
      scopeIds: [user, project, user],
      query: 'deploy friday holidays',
    })
    const got = items(r.content)
    expect(got.filter((i) => i['content'] === 'Deploy freeze during the holidays.')).toEqual([
      {
        citation: { artifact_id: shared.memoryRef.artifactId, revision: 1 },
        content: 'Deploy freeze during the holidays.',
        truncated: false,
      },
    ])
    const personal = got.find((i) => String(i['content']).startsWith('Alice'))
    expect(personal?.['scope_id']).toBe(user)
    expect(got).toHaveLength(3)
    expect(r.items.filter((i) => i.scopeId === undefined)).toHaveLength(2)

    const brief = await rt.prepareContext({ scopeId: project, scopeIds: [user] })
    expect(items(brief.content).map((i) => i['scope_id'] ?? 'project')).toEqual([
      user, // preferences come before decisions
      'project', // the user's copy of the decision is the newest; the project's is cited
    ])
  })

  it('keeps the budget: max_bytes 512–32768, the result never above it', async () => {
    const s = scope('budget')
    for (let i = 0; i < 12; i++)
      await rt.remember({
        scopeId: s,
        entries: [
          { kind: 'fact', text: `Budget note ${i}: ${'the cache warms lazily. '.repeat(90)}` },
        ],
      })
    for (const maxBytes of [512, 1000, 8000, 32_768]) {
      const r = await rt.prepareContext({ scopeId: s, query: 'cache warms budget note', maxBytes })
      expect(r.contentBytes).toBeLessThanOrEqual(maxBytes)
      expect(r.items.length).toBeLessThanOrEqual(8)
    }
    const big = await rt.prepareContext({
      scopeId: s,
      query: 'cache warms budget note',
      maxBytes: 32_768,
    })
    expect(big.items).toHaveLength(8)
    expect(big.items.every((i) => i.truncated)).toBe(true) // each text is over 2,000 bytes
    await expectInvalid(rt.prepareContext({ scopeId: s, query: 'x', maxBytes: 511 }), 'max_bytes')
    await expectInvalid(
      rt.prepareContext({ scopeId: s, query: 'x', maxBytes: 32_769 }),
      'max_bytes',
    )
    await expectInvalid(rt.prepareContext({ scopeId: s, query: 'x', maxBytes: 1.5 }), 'max_bytes')
  })

  it('refuses a blank query, bad scope ids and more than 8 extra scopes', async () => {
    const s = scope('bad')
    await expectInvalid(rt.prepareContext({ scopeId: s, query: ' \n ' }), 'query')
    await expectInvalid(rt.prepareContext({ scopeId: 'has space', query: 'x' }), 'scope_id')
    await expectInvalid(rt.prepareContext({ scopeId: s, scopeIds: ['bad id'] }), 'scope_ids[0]')
    const nine = Array.from({ length: 9 }, (_, i) => `${s}/${i}`)
    await expectInvalid(rt.prepareContext({ scopeId: s, scopeIds: nine }), 'scope_ids')
    expect((await rt.prepareContext({ scopeId: s, scopeIds: nine.slice(0, 8) })).status).toBe(
      'empty',
    )
  })

  it('is not delayed by a flush waiting on its generation model', async () => {
    const s = scope('unlocked')
    await remember(s, 'fact', 'The nightly job compacts the event store.')
    await rt.captureSource({ scopeId: s, sourceId: 'note-1', content: 'We compact nightly.' })
    chat.script({ ...proposal(), delayMs: 1500 })
    let flushed = false
    const flush = rt.flush({ scopeId: s }).then((r) => {
      flushed = true
      return r
    })
    // Wait until the flush is waiting for the model.
    for (let i = 0; i < 200 && chat.requests.length === 0; i++) await sleep(10)
    expect(chat.requests).toHaveLength(1)
    const r = await rt.prepareContext({ scopeId: s, query: 'event store compaction' })
    expect(r.status).toBe('ready')
    expect(flushed).toBe(false)
    expect((await flush).status).toBe('processed')
  })
})
