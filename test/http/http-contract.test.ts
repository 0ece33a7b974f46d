/**
 * End-to-end contract test over real servers on loopback: one valid request per contract
 * operation and a representative error per operation, every response body validated against the
 * schema the contract declares for that operation and status, and the request id header checked
 * on every response.
 */
import { gzipSync } from 'node:zlib'

import { beforeAll, describe, expect, it } from 'vitest'

import { type OperationId, OPERATIONS } from '../../src/contract/operations.js'
import type { RunningServer } from '../../src/http/server-run.js'
import {
  assertErrorEnvelope,
  assertMatchesContract,
  REQUEST_ID_PATTERN,
} from '../support/contract-assert.js'
import { useLoopbackServers } from '../support/loopback-servers.js'

const SCOPE = 'project:contract/e2e'
const TOKEN = 'contract-test-token'
const GENERATED_ID = /^[0-9a-f]{16}$/

interface Reply {
  readonly status: number
  readonly requestId: string | null
  readonly headers: Headers
  readonly body: unknown
}

interface Memory {
  readonly memory_ref: { readonly artifact_id: string; readonly revision: number }
  readonly state: string
  readonly text: string
}

const servers = useLoopbackServers(TOKEN, 'pc-http-contract-')
let server: RunningServer
let authServer: RunningServer
let unboundUrl: string
beforeAll(() => {
  ;({ server, authServer, unboundUrl } = servers)
})

/** Operations answered with a contract-valid success body, and with a contract-valid error. */
const validated = new Set<OperationId>()
const errored = new Set<OperationId>()

function operation(operationId: OperationId) {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  if (op === undefined) throw new Error(`no operation ${operationId}`)
  return op
}

/** Calls one contract operation with a JSON body (POST) or none (GET). */
async function call(
  operationId: OperationId,
  body?: unknown,
  options: { base?: string; requestId?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const op = operation(operationId)
  const headers: Record<string, string> = { ...options.headers }
  if (options.requestId !== undefined) headers['X-PowerContext-Request-ID'] = options.requestId
  const init: RequestInit = { method: op.method, headers }
  if (op.method === 'POST') {
    headers['content-type'] ??= 'application/json'
    init.body = JSON.stringify(body ?? {})
  }
  const res = await fetch(`${options.base ?? server.url}${op.path}`, init)
  const text = await res.text()
  return {
    status: res.status,
    requestId: res.headers.get('x-powercontext-request-id'),
    headers: res.headers,
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  }
}

/**
 * Asserts the status, the request id header (the caller's safe id echoed, else a generated one)
 * and the body against the contract's schema for that operation and status. Returns the body.
 */
function expectContract<T = Record<string, unknown>>(
  operationId: OperationId,
  reply: Reply,
  status: number,
  callerId?: string,
): T {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.requestId).toMatch(REQUEST_ID_PATTERN)
  if (callerId !== undefined) expect(reply.requestId).toBe(callerId)
  else expect(reply.requestId).toMatch(GENERATED_ID)
  assertMatchesContract(operationId, reply.status, reply.body)
  if (status < 300) validated.add(operationId)
  else errored.add(operationId)
  // Every failure but readiness's 503 (a ReadinessResponse) is the error envelope.
  if (status >= 400 && operationId !== 'ready') assertErrorEnvelope(reply.body, reply.requestId)
  return reply.body as T
}

const errorOf = (body: unknown) =>
  (body as { error: { code: string; details: Record<string, unknown> | null } }).error

describe('HTTP contract, end to end', () => {
  const ids = { a: '', b: '', c: '', m: '' }

  it('health and capabilities answer with the contract shapes', async () => {
    const live = expectContract<{ status: string }>(
      'live',
      await call('live', undefined, { requestId: 'contract:live.1' }),
      200,
      'contract:live.1',
    )
    expect(live.status).toBe('ok')
    const ready = expectContract<{ status: string }>('ready', await call('ready'), 200)
    expect(ready.status).toBe('ready')
    const caps = expectContract<{ search_modes: string[]; limits: Record<string, number> }>(
      'capabilities',
      await call('capabilities'),
      200,
    )
    expect(caps.search_modes).toContain('fts')
    expect(caps.limits['body_bytes']).toBe(2 * 1024 * 1024)
  })

  it('captures a source and remembers memories citing it', async () => {
    const captured = expectContract<{ status: string; source: unknown; position: number }>(
      'captureContent',
      await call('captureContent', {
        scope_id: SCOPE,
        source_id: 'src-contract-1',
        content: 'Standup notes: the team agreed to deploy with blue-green releases.',
        metadata: { origin: 'test', tags: ['standup'] },
        occurred_at: '2025-03-01T09:30:00+01:00',
      }),
      202,
    )
    expect(captured).toMatchObject({
      status: 'accepted',
      source: { name: 'content', source_id: 'src-contract-1' },
    })

    const remembered = expectContract<{ results: { status: string; memory: Memory }[] }>(
      'remember',
      await call(
        'remember',
        {
          scope_id: SCOPE,
          entries: [
            {
              kind: 'decision',
              text: 'Deployments use blue-green releases behind the load balancer.',
              sources: [{ name: 'content', source_id: 'src-contract-1' }],
              observed_at: '2025-03-01T08:30:00Z',
              reason: 'from the standup',
            },
            { kind: 'preference', text: 'Prefer pnpm over npm for the web workspace.' },
          ],
        },
        { requestId: 'trace-remember_1' },
      ),
      200,
      'trace-remember_1',
    )
    expect(remembered.results.map((r) => r.status)).toEqual(['created', 'created'])
    ids.a = remembered.results[0]!.memory.memory_ref.artifact_id
    ids.b = remembered.results[1]!.memory.memory_ref.artifact_id

    const again = expectContract<{ results: { status: string }[] }>(
      'remember',
      await call('remember', {
        scope_id: SCOPE,
        entries: [{ kind: 'preference', text: 'Prefer pnpm over npm for the web workspace.' }],
      }),
      200,
    )
    expect(again.results[0]!.status).toBe('unchanged')
  })

  it('updates, reads by memory_ref and by memory_id, and returns history', async () => {
    const updated = expectContract<{ status: string; memory: Memory }>(
      'update',
      await call('update', {
        scope_id: SCOPE,
        memory_ref: { artifact_id: ids.a, revision: 1 },
        text: 'Deployments use blue-green releases; canaries were dropped.',
        reason: 'clarified',
      }),
      200,
    )
    expect(updated.status).toBe('updated')
    expect(updated.memory.memory_ref.revision).toBe(2)

    const byRef = expectContract<{ memory: Memory; current_revision: number; state: string }>(
      'get',
      await call('get', { scope_id: SCOPE, memory_ref: { artifact_id: ids.a, revision: 1 } }),
      200,
    )
    expect(byRef.memory.memory_ref.revision).toBe(1)
    expect(byRef.current_revision).toBe(2)

    const byId = expectContract<{ memory: Memory }>(
      'get',
      await call('get', { scope_id: SCOPE, memory_id: ids.a }),
      200,
    )
    expect(byId.memory.memory_ref.revision).toBe(2)

    const history = expectContract<{ versions: Memory[]; transitions: unknown[] }>(
      'history',
      await call('history', { scope_id: SCOPE, memory_id: ids.a }),
      200,
    )
    expect(history.versions.map((v) => v.memory_ref.revision)).toEqual([1, 2])
    expect(history.transitions.length).toBeGreaterThanOrEqual(2)
  })

  it('forgets and restores, then lists, searches and reads the change log', async () => {
    const forgotten = expectContract<{ status: string; memory: Memory }>(
      'forget',
      await call('forget', { scope_id: SCOPE, memory_id: ids.b, expected_revision: 1 }),
      200,
    )
    expect(forgotten).toMatchObject({ status: 'forgotten', memory: { state: 'forgotten' } })

    const restored = expectContract<{ status: string; memory: Memory }>(
      'restore',
      await call('restore', { scope_id: SCOPE, memory_id: ids.b, reason: 'still true' }),
      200,
    )
    expect(restored).toMatchObject({ status: 'restored', memory: { state: 'active' } })

    const list = expectContract<{ memories: Memory[]; next_after: string | null }>(
      'list',
      await call('list', { scope_id: SCOPE, states: ['active'], limit: 10 }),
      200,
    )
    expect(list.memories.map((m) => m.memory_ref.artifact_id).sort()).toEqual([ids.a, ids.b].sort())

    const search = expectContract<{ mode: string; hits: { memory_ref: Memory['memory_ref'] }[] }>(
      'search',
      await call('search', {
        scope_id: SCOPE,
        query: 'which releases do deployments use?',
        limit: 8,
      }),
      200,
    )
    expect(search.mode).toBe('fts')
    expect(search.hits[0]?.memory_ref).toEqual({ artifact_id: ids.a, revision: 2 })

    const changes = expectContract<{ changes: { op: string }[]; head_seq: number }>(
      'changes',
      await call('changes', { scope_id: SCOPE, since: 0 }),
      200,
    )
    expect(changes.changes.map((c) => c.op)).toEqual(['add', 'add', 'update', 'forget', 'restore'])
    expect(changes.head_seq).toBe(5)
  })

  it('merges, previews the undo, and restores with the preview token', async () => {
    const added = expectContract<{ results: { memory: Memory }[] }>(
      'remember',
      await call('remember', {
        scope_id: SCOPE,
        entries: [{ kind: 'preference', text: 'Use pnpm workspaces for the web packages.' }],
      }),
      200,
    )
    ids.c = added.results[0]!.memory.memory_ref.artifact_id

    const merged = expectContract<{ merge_id: string; memory: Memory; inputs: Memory[] }>(
      'merge',
      await call('merge', {
        scope_id: SCOPE,
        inputs: [
          { artifact_id: ids.b, revision: 1 },
          { artifact_id: ids.c, revision: 1 },
        ],
        kind: 'preference',
        text: 'Prefer pnpm (with workspaces) over npm for the web packages.',
        reason: 'same preference',
      }),
      200,
    )
    ids.m = merged.memory.memory_ref.artifact_id
    expect(merged.inputs.map((m) => m.state)).toEqual(['merged', 'merged'])

    const history = expectContract<{ state: string; merges: { state: string }[] }>(
      'history',
      await call('history', { scope_id: SCOPE, memory_id: ids.b }),
      200,
    )
    expect(history.state).toBe('merged')
    expect(history.merges.map((m) => m.state)).toEqual(['effective'])

    const preview = expectContract<{
      plan: { restore: { memory_id: string }[]; retire: { memory_id: string }[] }
      preview_token: string
    }>('restorePreview', await call('restorePreview', { scope_id: SCOPE, memory_id: ids.b }), 200)
    expect(preview.plan.restore.map((r) => r.memory_id).sort()).toEqual([ids.b, ids.c].sort())
    expect(preview.plan.retire.map((r) => r.memory_id)).toEqual([ids.m])

    const restored = expectContract<{ status: string; restored: Memory[]; retired: Memory[] }>(
      'restore',
      await call('restore', {
        scope_id: SCOPE,
        memory_id: ids.b,
        preview_token: preview.preview_token,
      }),
      200,
    )
    expect(restored.status).toBe('restored')
    expect(restored.retired.map((m) => m.memory_ref.artifact_id)).toEqual([ids.m])
  })

  it('answers a representative error per operation with the contract envelope', async () => {
    // live: the contract declares only 200; a wrong method is a 405 in the error envelope.
    const live = await call('live', undefined, { headers: {} })
    expect(live.status).toBe(200)
    const wrong = await fetch(`${server.url}/health/live`, { method: 'POST' })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.get('allow')).toBe('GET')
    assertErrorEnvelope(await wrong.json(), wrong.headers.get('x-powercontext-request-id'))
    errored.add('live')

    // ready: 503 (ReadinessResponse) while the runtime is not bound.
    const notReady = expectContract<{ status: string }>(
      'ready',
      await call('ready', undefined, { base: unboundUrl }),
      503,
    )
    expect(notReady.status).toBe('not_ready')

    // capabilities: 401 without the bearer token on a server that requires one.
    const unauthorized = await call('capabilities', undefined, { base: authServer.url })
    expect(errorOf(expectContract('capabilities', unauthorized, 401)).code).toBe('unauthorized')
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Bearer /)
    expectContract(
      'capabilities',
      await call('capabilities', undefined, {
        base: authServer.url,
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
      200,
    )
    expectContract('live', await call('live', undefined, { base: authServer.url }), 200)

    // captureContent: the same source id with another payload is a conflict.
    const conflict = await call('captureContent', {
      scope_id: SCOPE,
      source_id: 'src-contract-1',
      content: 'Different content under the same id.',
    })
    expect(errorOf(expectContract('captureContent', conflict, 409)).code).toBe('source_conflict')

    // remember: schema violation, with the offending field in details.errors.
    const invalid = errorOf(
      expectContract(
        'remember',
        await call('remember', { scope_id: SCOPE, entries: [] }, { requestId: 'bad:remember' }),
        422,
        'bad:remember',
      ),
    )
    expect(invalid.code).toBe('invalid_request')
    expect(invalid.details?.['errors']).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'entries' })]),
    )

    // update: a stale base revision.
    const staleUpdate = await call('update', {
      scope_id: SCOPE,
      memory_ref: { artifact_id: ids.a, revision: 1 },
      text: 'A write computed from an old version.',
    })
    expect(errorOf(expectContract('update', staleUpdate, 409)).code).toBe('revision_conflict')

    // forget: an unknown memory.
    const missing = await call('forget', {
      scope_id: SCOPE,
      memory_id: 'mem_01JNOSUCHMEMORY0000000000',
    })
    expect(errorOf(expectContract('forget', missing, 404)).code).toBe('memory_not_found')

    // restore: a memory of another scope is not found in this one.
    const foreign = await call('restore', { scope_id: 'project:other', memory_id: ids.b })
    expect(errorOf(expectContract('restore', foreign, 404)).code).toBe('memory_not_found')

    // restorePreview: an unknown memory.
    const noPreview = await call('restorePreview', {
      scope_id: SCOPE,
      memory_id: 'mem_01JNOSUCHMEMORY0000000000',
    })
    expect(errorOf(expectContract('restorePreview', noPreview, 404)).code).toBe('memory_not_found')

    // restore: a preview token that no longer matches (the merge above was undone since).
    const stale = await call('restore', {
      scope_id: SCOPE,
      memory_id: ids.c,
      preview_token: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    })
    expect(errorOf(expectContract('restore', stale, 409)).code).toBe('preview_stale')

    // merge: the retired result of an undone merge cannot be merged again.
    const retired = await call('merge', {
      scope_id: SCOPE,
      inputs: [
        { artifact_id: ids.m, revision: 1 },
        { artifact_id: ids.a, revision: 2 },
      ],
      kind: 'fact',
      text: 'Cannot happen.',
    })
    expect(errorOf(expectContract('merge', retired, 409)).code).toBe('state_conflict')

    // get: a revision that does not exist.
    const noVersion = await call('get', {
      scope_id: SCOPE,
      memory_ref: { artifact_id: ids.a, revision: 99 },
    })
    expect(errorOf(expectContract('get', noVersion, 404)).code).toBe('memory_not_found')

    // get: a malformed memory_id (or memory_ref) names that field alone, not the other branches
    // of the request's oneOf ("must have required property 'memory_ref'" …).
    for (const [body, field] of [
      [{ scope_id: SCOPE, memory_id: 'bad id' }, 'memory_id'],
      [{ scope_id: SCOPE, memory_id: 7 }, 'memory_id'],
      [
        { scope_id: SCOPE, memory_ref: { artifact_id: 'a b', revision: 1 } },
        'memory_ref.artifact_id',
      ],
    ] as const) {
      const badId = errorOf(expectContract('get', await call('get', body), 422))
      expect(badId.code).toBe('invalid_request')
      expect((badId as { message?: string }).message).toMatch(new RegExp(`: ${field} must `))
      expect(badId.details?.['errors']).toEqual([
        { field, message: expect.stringMatching(/^must /) as unknown },
      ])
    }

    // history: unknown field (request bodies reject unknown fields).
    const extra = await call('history', { scope_id: SCOPE, memory_id: ids.a, verbose: true })
    expect(errorOf(expectContract('history', extra, 422)).code).toBe('invalid_request')

    // list: a limit above the maximum.
    const overLimit = await call('list', { scope_id: SCOPE, limit: 501 })
    expect(errorOf(expectContract('list', overLimit, 422)).code).toBe('invalid_request')

    // search: a mode this runtime cannot run fails, never an empty result.
    const vector = errorOf(
      expectContract(
        'search',
        await call('search', { scope_id: SCOPE, query: 'deploy', mode: 'vector' }),
        422,
      ),
    )
    expect(vector).toMatchObject({
      code: 'capability_not_supported',
      details: { capability: 'vector' },
    })

    // changes: `since` below zero.
    const negative = await call('changes', { scope_id: SCOPE, since: -1 })
    expect(errorOf(expectContract('changes', negative, 422)).code).toBe('invalid_request')
  })

  it('maps transport-level failures to the envelope (422 for a body that is no JSON, 404, 413, 415, 503)', async () => {
    const post = (path: string, body: string | Uint8Array, contentType?: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: contentType === undefined ? {} : { 'content-type': contentType },
        body,
      })
    const cases: [Response, number, OperationId][] = [
      [await post('/v1/memory/search', '{"scope_id":', 'application/json'), 422, 'search'],
      [
        await post('/v1/memory/list', new Uint8Array([0x7b, 0xff, 0x7d]), 'application/json'),
        422,
        'list',
      ],
      [await post('/v1/memory/get', '{"scope_id":"a"}', 'text/plain'), 415, 'get'],
      [
        await post('/v1/memory/remember', `"${'x'.repeat(2 * 1024 * 1024)}"`, 'application/json'),
        413,
        'remember',
      ],
    ]
    for (const [res, status, op] of cases) {
      const body: unknown = await res.json()
      expect(res.status, JSON.stringify(body)).toBe(status)
      assertMatchesContract(op, status, body)
      assertErrorEnvelope(body, res.headers.get('x-powercontext-request-id'))
    }
    const tooLarge = cases[3]![0]
    expect(tooLarge.status).toBe(413)

    // A body in an encoding the server does not decode is 415, whatever it holds; identity is fine.
    const encoded = (encoding: string, body: string | Uint8Array) =>
      fetch(`${server.url}/v1/memory/get`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      })
    const getBody = JSON.stringify({ scope_id: SCOPE, memory_id: 'mem_01JNOSUCHMEMORY0000000000' })
    for (const res of [
      await encoded('gzip', gzipSync(getBody)),
      await encoded('br', getBody),
      await encoded('identity, gzip', gzipSync(getBody)),
    ]) {
      const body: unknown = await res.json()
      expect(res.status, JSON.stringify(body)).toBe(415)
      expect(res.headers.get('accept-encoding')).toBe('identity')
      assertMatchesContract('get', 415, body)
      assertErrorEnvelope(body, res.headers.get('x-powercontext-request-id'))
      expect(errorOf(body).code).toBe('invalid_request')
    }
    expect((await encoded('identity', getBody)).status).toBe(404)

    const unknown = await fetch(`${server.url}/v1/memory/nope`)
    expect(unknown.status).toBe(404)
    assertErrorEnvelope(await unknown.json(), unknown.headers.get('x-powercontext-request-id'))

    // Memory routes on a listener without a bound runtime.
    const notReady = await call(
      'search',
      { scope_id: SCOPE, query: 'deploy' },
      { base: unboundUrl, requestId: 'unbound.1' },
    )
    expect(errorOf(expectContract('search', notReady, 503, 'unbound.1')).code).toBe(
      'runtime_not_ready',
    )
  })

  it('answers a body that is no JSON text with 422 invalid_request on every route and /mcp', async () => {
    const bad: [string, string | Uint8Array][] = [
      ['not JSON', '{"scope_id":'],
      ['not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d])],
      ['empty', ' '],
    ]
    const posts = OPERATIONS.filter((op) => op.method === 'POST')
    expect(posts.length).toBeGreaterThan(10)
    for (const [label, body] of bad) {
      for (const op of posts) {
        const res = await fetch(`${server.url}${op.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        })
        const reply: unknown = await res.json()
        expect(res.status, `${op.operationId} ${label}: ${JSON.stringify(reply)}`).toBe(422)
        assertMatchesContract(op.operationId, 422, reply)
        assertErrorEnvelope(reply, res.headers.get('x-powercontext-request-id'))
        expect(errorOf(reply).code).toBe('invalid_request')
      }
      const mcp = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      })
      const reply: unknown = await mcp.json()
      expect(mcp.status, `/mcp ${label}: ${JSON.stringify(reply)}`).toBe(422)
      assertErrorEnvelope(reply, mcp.headers.get('x-powercontext-request-id'))
      expect(errorOf(reply).code).toBe('invalid_request')
    }
  })

  it('flushes captured sources and lists decision records', async () => {
    const scope_id = `${SCOPE}/flush`
    expectContract(
      'captureContent',
      await call('captureContent', {
        scope_id,
        source_id: 'notes',
        media_type: 'application/vnd.powercontext.memory+json',
        content: JSON.stringify({ entries: [{ kind: 'decision', text: 'Tabs, not spaces.' }] }),
      }),
      202,
    )
    const flushed = expectContract<{ status: string; cursor: number; record_id: string }>(
      'flush',
      await call('flush', { scope_id, limit: 10 }),
      200,
    )
    expect(flushed).toMatchObject({ status: 'processed', cursor: 1 })
    expect(
      expectContract<{ status: string }>('flush', await call('flush', { scope_id }), 200).status,
    ).toBe('idle')
    const records = expectContract<{ records: { record_id: string }[] }>(
      'flushRecords',
      await call('flushRecords', { scope_id, record_id: flushed.record_id }),
      200,
    )
    expect(records.records.map((r) => r.record_id)).toEqual([flushed.record_id])

    // flush: a limit above the maximum; flushRecords: an unknown field.
    const over = await call('flush', { scope_id, limit: 1001 })
    expect(errorOf(expectContract('flush', over, 422)).code).toBe('invalid_request')
    const unknown = await call('flushRecords', { scope_id, verbose: true })
    expect(errorOf(expectContract('flushRecords', unknown, 422)).code).toBe('invalid_request')

    // redact: the source erased with the decision record whose window held it (the response
    // never carries their text); the record then reads as redacted; no target is 422.
    const redacted = expectContract<{ items: { target: string; status: string }[] }>(
      'redact',
      await call('redact', { scope_id, source_id: 'notes', reason: 'contract test' }),
      200,
    )
    expect(redacted.items.map((i) => [i.target, i.status])).toEqual([
      ['source', 'redacted'],
      ['record', 'redacted'],
    ])
    const erased = expectContract<{ records: { redaction?: { reason: string } }[] }>(
      'flushRecords',
      await call('flushRecords', { scope_id, record_id: flushed.record_id }),
      200,
    )
    expect(erased.records[0]?.redaction?.reason).toBe('contract test')
    expect(JSON.stringify(erased)).not.toContain('Tabs, not spaces')
    const none = await call('redact', { scope_id })
    expect(errorOf(expectContract('redact', none, 422)).code).toBe('invalid_request')
  })

  it('lists scopes, reads sources and the journal, and serves the contract', async () => {
    const scope_id = `${SCOPE}/browse`
    expectContract(
      'captureContent',
      await call('captureContent', {
        scope_id,
        source_id: 'ev1',
        content: 'Evidence one',
        metadata: { file: 'a.md' },
      }),
      202,
    )
    expectContract(
      'remember',
      await call('remember', {
        scope_id,
        entries: [
          { kind: 'fact', text: 'Browsed fact', sources: [{ name: 'content', source_id: 'ev1' }] },
        ],
      }),
      200,
    )
    const scopes = expectContract<{ scopes: Record<string, unknown>[]; next_after: string | null }>(
      'listScopes',
      await call('listScopes', { after: `${SCOPE}/aaa`, limit: 1 }),
      200,
    )
    expect(scopes.scopes[0]).toMatchObject({
      scope_id,
      counts: { active: 1, forgotten: 0, merged: 0, retired: 0 },
      memory_count: 1,
      high_watermark: 1,
      cursor: 0,
    })
    const sources = expectContract<{ sources: Record<string, unknown>[] }>(
      'getSources',
      await call('getSources', { scope_id, source_ids: ['ev1'] }),
      200,
    )
    expect(sources.sources[0]).toMatchObject({
      source: { name: 'content', source_id: 'ev1' },
      position: 1,
      content: 'Evidence one',
      metadata: { file: 'a.md' },
      status: 'pending',
      failure: null,
    })
    const journal = expectContract('listSources', await call('listSources', { scope_id }), 200)
    expect(journal).toMatchObject({ cursor: 0, high_watermark: 1, next_after: null })
    const missing = await call('getSources', { scope_id, source_ids: ['nope'] })
    expect(errorOf(expectContract('getSources', missing, 404)).code).toBe('source_not_found')
    const badLimit = await call('listScopes', { limit: 501 })
    expect(errorOf(expectContract('listScopes', badLimit, 422)).code).toBe('invalid_request')
    const unknown = await call('listSources', { scope_id, verbose: true })
    expect(errorOf(expectContract('listSources', unknown, 422)).code).toBe('invalid_request')

    // The contract is public, like the health routes; a wrong method is a 405 envelope.
    const doc = expectContract<{ openapi: string; paths: Record<string, unknown> }>(
      'openapiDocument',
      await call('openapiDocument', undefined, { base: authServer.url }),
      200,
    )
    expect(doc.openapi).toBe('3.1.0')
    expect(Object.keys(doc.paths)).toContain('/v1/scopes/list')
    const wrong = await fetch(`${server.url}/openapi.json`, { method: 'POST' })
    expect(wrong.status).toBe(405)
    assertErrorEnvelope(await wrong.json(), wrong.headers.get('x-powercontext-request-id'))
    errored.add('openapiDocument')
  })

  it('serves metrics as Prometheus text behind the bearer token', async () => {
    const op = operation('metrics')
    const denied = await call('metrics', undefined, { base: authServer.url })
    expect(errorOf(expectContract('metrics', denied, 401)).code).toBe('unauthorized')
    const res = await fetch(`${authServer.url}${op.path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(res.headers.get('x-powercontext-request-id')).toMatch(GENERATED_ID)
    expect(await res.text()).toMatch(/^# HELP powercontext_http_requests_total /m)
    validated.add('metrics')
  })

  it('prepares context: the v1 envelope for a query, the brief, and empty', async () => {
    const ready = expectContract<{ content: string; content_bytes: number }>(
      'prepareContext',
      await call('prepareContext', {
        scope_id: SCOPE,
        query: 'which releases do deployments use?',
        max_bytes: 2000,
      }),
      200,
    )
    expect(Object.keys(ready).sort()).toEqual(['content', 'content_bytes', 'schema', 'status'])
    expect(ready).toMatchObject({ schema: 'powercontext.prepared-context.v1', status: 'ready' })
    expect(ready.content_bytes).toBe(Buffer.byteLength(ready.content, 'utf8'))
    expect(ready.content_bytes).toBeLessThanOrEqual(2000)
    expect(ready.content).toContain(`"citation":{"artifact_id":"${ids.a}","revision":2}`)
    const brief = expectContract(
      'prepareContext',
      await call('prepareContext', { scope_id: SCOPE }),
      200,
    )
    expect(brief['status']).toMatch(/^(ready|empty)$/)
    expect(
      expectContract(
        'prepareContext',
        await call('prepareContext', { scope_id: `${SCOPE}:none`, query: 'anything at all' }),
        200,
      ),
    ).toEqual({
      schema: 'powercontext.prepared-context.v1',
      status: 'empty',
      content: null,
      content_bytes: 0,
    })
    const tooSmall = await call('prepareContext', { scope_id: SCOPE, query: 'x', max_bytes: 511 })
    expect(errorOf(expectContract('prepareContext', tooSmall, 422)).code).toBe('invalid_request')
    const blank = await call('prepareContext', { scope_id: SCOPE, query: '   ' })
    expect(errorOf(expectContract('prepareContext', blank, 422)).code).toBe('invalid_request')
    const extra = await call('prepareContext', { scope_id: SCOPE, query: 'x', limit: 3 })
    expect(errorOf(expectContract('prepareContext', extra, 422)).code).toBe('invalid_request')
  })

  it('records a receipt of a prepare that names its session, and reads it back', async () => {
    const receipt = { host: 'claude-code', session_id: 'contract-session', event: 'session_start' }
    const prepared = expectContract<{ content: string | null; content_bytes: number }>(
      'prepareContext',
      await call('prepareContext', { scope_id: SCOPE, receipt }),
      200,
    )
    const page = expectContract<{ receipts: Record<string, unknown>[]; usage: unknown }>(
      'contextReceipts',
      await call('contextReceipts', { scope_id: SCOPE, session_id: 'contract-session' }),
      200,
    )
    expect(page.usage).toBeNull()
    expect(page.receipts).toHaveLength(1)
    expect(page.receipts[0]).toMatchObject({
      host: 'claude-code',
      session_id: 'contract-session',
      event: 'session_start',
      kind: 'brief',
      content_bytes: prepared.content_bytes,
    })
    const badReceipt = await call('prepareContext', {
      scope_id: SCOPE,
      receipt: { ...receipt, host: 'Not A Tag' },
    })
    expect(errorOf(expectContract('prepareContext', badReceipt, 422)).code).toBe('invalid_request')
    const badCursor = await call('contextReceipts', { scope_id: SCOPE, before: 'nope' })
    expect(errorOf(expectContract('contextReceipts', badCursor, 422)).code).toBe('invalid_request')
  })

  it("answers Claude Code's hook payload with the hook output, and a bad payload with 422", async () => {
    const payload = {
      hook_event_name: 'UserPromptSubmit',
      session_id: 'contract-session',
      cwd: '/',
      prompt: 'which releases do deployments use?',
    }
    const headers = { 'X-PowerContext-Scope': SCOPE }
    const out = expectContract<{ hookSpecificOutput?: { additionalContext: string } }>(
      'claudeCodeHook',
      await call('claudeCodeHook', payload, { headers }),
      200,
    )
    expect(out.hookSpecificOutput?.additionalContext).toContain(
      'BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1',
    )
    const bad = await call('claudeCodeHook', { ...payload, session_id: '' }, { headers })
    expect(errorOf(expectContract('claudeCodeHook', bad, 422)).code).toBe('invalid_request')
  })

  it('covered every operation of the contract', () => {
    const all = OPERATIONS.map((o) => o.operationId).sort()
    expect([...validated].sort()).toEqual(all)
    expect([...errored].sort()).toEqual(all)
  })
})
