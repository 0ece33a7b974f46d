/**
 * The typed client against real servers on loopback: the whole memory lifecycle, auth on and off,
 * and readiness before the runtime is bound. Every response body the client receives is validated
 * against the contract's schema for its operation and status (ContractRecorder).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest'

import {
  createPowerContextClient,
  type PowerContextClient,
  PowerContextClientError,
} from '../../src/client/index.js'
import { OPERATIONS } from '../../src/contract/operations.js'
import type { RunningServer } from '../../src/http/server-run.js'
import { ContractRecorder } from '../support/contract-assert.js'
import { useLoopbackServers } from '../support/loopback-servers.js'

const TOKEN = 'client-e2e-token'
const SCOPE = 'project:client/e2e'
const recorder = new ContractRecorder()

const servers = useLoopbackServers(TOKEN, 'pc-client-e2e-')
let server: RunningServer
let authServer: RunningServer
let unboundUrl: string
beforeAll(() => {
  ;({ server, authServer, unboundUrl } = servers)
})

const client = (baseUrl: string, token?: string): PowerContextClient =>
  createPowerContextClient({ baseUrl, token, fetch: recorder.fetch })

/** Awaits a rejection and returns it as a client error. */
async function failure(p: Promise<unknown>): Promise<PowerContextClientError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PowerContextClientError)
  return err as PowerContextClientError
}

afterEach(() => {
  expect(recorder.takeViolations()).toEqual([])
})

describe('client end to end', () => {
  it('reports liveness, readiness and capabilities', async () => {
    const pc = client(server.url)
    expect(await pc.live()).toEqual({ status: 'ok' })
    expect(await pc.ready()).toMatchObject({ status: 'ready', checks: { database: 'ready' } })
    const caps = await pc.capabilities({ requestId: 'e2e:caps' })
    expect(caps.version).toBe('0.1.0')
    expect(caps.search_modes).toContain('fts')
    expect(caps.limits.remember_entries).toBe(100)
  })

  it('runs the memory lifecycle', async () => {
    const pc = client(server.url)
    const evidence = {
      scope_id: SCOPE,
      source_id: 'meeting-1',
      content: 'Kim: production releases need owner approval from now on.',
      metadata: { channel: 'standup', attendees: ['kim', 'lee'] },
    }
    const captured = await pc.captureContent(evidence)
    expect(captured).toMatchObject({ status: 'accepted', source: { source_id: 'meeting-1' } })
    expect((await pc.captureContent(evidence)).position).toBe(captured.position)
    const conflict = await failure(pc.captureContent({ ...evidence, content: 'something else' }))
    expect([conflict.code, conflict.status]).toEqual(['source_conflict', 409])

    const batch = await pc.remember({
      scope_id: SCOPE,
      entries: [
        {
          kind: 'decision',
          text: 'Production releases need owner approval',
          sources: [{ name: 'content', source_id: 'meeting-1' }],
        },
        { kind: 'preference', text: 'Kim prefers squash merges' },
      ],
    })
    expect(batch.results.map((r) => r.status)).toEqual(['created', 'created'])
    const [a, b] = batch.results.map((r) => r.memory.memory_ref.artifact_id) as [string, string]
    expect(batch.results[0]?.memory.sources).toEqual([{ name: 'content', source_id: 'meeting-1' }])
    // Content includes evidence: only the same kind, text and sources is a duplicate.
    const dup = await pc.remember({
      scope_id: SCOPE,
      entries: [{ kind: 'preference', text: ' Kim prefers squash merges ' }],
    })
    expect(dup.results[0]).toMatchObject({
      status: 'unchanged',
      memory: { memory_ref: { artifact_id: b } },
    })
    const missing = await failure(
      pc.remember({
        scope_id: SCOPE,
        entries: [{ kind: 'fact', text: 'x', sources: [{ name: 'content', source_id: 'nope' }] }],
      }),
    )
    expect([missing.code, missing.status]).toEqual(['source_not_found', 404])

    const found = await pc.search({ scope_id: SCOPE, query: 'release approval' })
    expect(found.mode).toBe('fts')
    expect(found.hits.map((h) => h.memory_ref.artifact_id)).toEqual([a])

    const updated = await pc.update({
      scope_id: SCOPE,
      memory_ref: { artifact_id: a, revision: 1 },
      text: 'Production releases need two approvals',
    })
    expect(updated).toMatchObject({ status: 'updated', memory: { memory_ref: { revision: 2 } } })
    const stale = await failure(
      pc.update(
        { scope_id: SCOPE, memory_ref: { artifact_id: a, revision: 1 }, text: 'stale' },
        { requestId: 'e2e:stale-update' },
      ),
    )
    expect(stale).toMatchObject({
      code: 'revision_conflict',
      status: 409,
      requestId: 'e2e:stale-update',
    })
    const generated = await failure(
      pc.update({ scope_id: SCOPE, memory_ref: { artifact_id: a, revision: 1 }, text: 'stale' }),
    )
    expect(generated.requestId).toMatch(/^[0-9a-f]{16}$/)

    const exact = await pc.get({ scope_id: SCOPE, memory_ref: { artifact_id: a, revision: 1 } })
    expect(exact).toMatchObject({ current_revision: 2, state: 'active' })
    expect(exact.memory.text).toBe('Production releases need owner approval')
    const current = await pc.get({ scope_id: SCOPE, memory_id: a })
    expect(current.memory.text).toBe('Production releases need two approvals')
    const notFound = await failure(pc.get({ scope_id: SCOPE, memory_id: 'mem_unknown' }))
    expect([notFound.code, notFound.status]).toEqual(['memory_not_found', 404])

    expect((await pc.forget({ scope_id: SCOPE, memory_id: a, expected_revision: 2 })).status).toBe(
      'forgotten',
    )
    expect((await pc.forget({ scope_id: SCOPE, memory_id: a })).status).toBe('unchanged')
    expect((await pc.search({ scope_id: SCOPE, query: 'release approval' })).hits).toEqual([])
    const restored = await pc.restore({ scope_id: SCOPE, memory_id: a, to_revision: 1 })
    expect(restored.status).toBe('restored')
    expect(restored.memory).toMatchObject({
      state: 'active',
      text: 'Production releases need owner approval',
      memory_ref: { revision: 3 },
    })

    await pc.forget({ scope_id: SCOPE, memory_id: b, reason: 'not a team rule' })
    expect((await pc.restore({ scope_id: SCOPE, memory_id: b })).memory).toMatchObject({
      state: 'active',
      memory_ref: { revision: 1 },
    })

    const history = await pc.history({ scope_id: SCOPE, memory_id: a })
    expect(history.versions.map((v) => v.memory_ref.revision)).toEqual([1, 2, 3])
    expect(history.transitions.map((t) => t.op)).toEqual([
      'add',
      'update',
      'forget',
      'restore',
      'update',
    ])

    const changes = await pc.changes({ scope_id: SCOPE })
    expect(changes.changes.length).toBe(changes.head_seq)
    const tail = await pc.changes({ scope_id: SCOPE, since: changes.head_seq - 1, limit: 5 })
    expect(tail.changes.map((c) => c.seq)).toEqual([changes.head_seq])
  })

  it('merges, previews a restore and undoes the merge', async () => {
    const pc = client(server.url)
    const scope = `${SCOPE}/merge`
    const r = await pc.remember({
      scope_id: scope,
      entries: [
        { kind: 'fact', text: 'CI runs on Node 20' },
        { kind: 'fact', text: 'CI uses npm ci' },
      ],
    })
    const inputs = r.results.map((x) => x.memory.memory_ref)
    const merged = await pc.merge({
      scope_id: scope,
      inputs,
      kind: 'fact',
      text: 'CI runs npm ci on Node 20',
    })
    expect(merged.inputs.map((m) => m.state)).toEqual(['merged', 'merged'])
    const preview = await pc.restorePreview({ scope_id: scope, memory_id: inputs[0]!.artifact_id })
    expect(preview.plan.retire.map((p) => p.memory_id)).toEqual([
      merged.memory.memory_ref.artifact_id,
    ])
    const undone = await pc.restore({
      scope_id: scope,
      memory_id: inputs[0]!.artifact_id,
      preview_token: preview.preview_token,
    })
    expect(undone.retired.map((m) => m.memory_ref.artifact_id)).toEqual([
      merged.memory.memory_ref.artifact_id,
    ])
    const history = await pc.history({ scope_id: scope, memory_id: inputs[0]!.artifact_id })
    expect(history.merges.map((m) => m.state)).toEqual(['undone'])
  })

  it('pages through a list with next_after', async () => {
    const pc = client(server.url)
    const scope = `${SCOPE}/list`
    const created = await pc.remember({
      scope_id: scope,
      entries: ['one', 'two', 'three', 'four', 'five'].map((w) => ({
        kind: 'fact',
        text: `item ${w}`,
      })),
    })
    const ids = created.results.map((x) => x.memory.memory_ref.artifact_id).sort()
    const seen: string[] = []
    let after: string | undefined
    for (let page = 0; page < 10; page += 1) {
      const r = await pc.list({
        scope_id: scope,
        limit: 2,
        ...(after === undefined ? {} : { after }),
      })
      seen.push(...r.memories.map((m) => m.memory_ref.artifact_id))
      if (r.next_after === null) break
      after = r.next_after
    }
    expect(seen).toEqual(ids)
    const bad = await failure(pc.list({ scope_id: scope, limit: 0 }))
    expect([bad.code, bad.status]).toEqual(['invalid_request', 422])
    expect(bad.details?.['errors']).toEqual([expect.objectContaining({ field: 'limit' })])
  })

  it('flushes captured sources and reads the decision records', async () => {
    const pc = client(server.url)
    const scope_id = `${SCOPE}/flush`
    const { position } = await pc.captureContent({
      scope_id,
      media_type: 'application/vnd.powercontext.memory+json',
      content: JSON.stringify({ entries: [{ kind: 'fact', text: 'Flushed from the client.' }] }),
    })
    const r = await pc.flush({ scope_id })
    expect(r).toMatchObject({ status: 'processed', cursor: position, processed_source_count: 1 })
    expect(r.changes.map((c) => c.op)).toEqual(['add'])
    const { records } = await pc.flushRecords({ scope_id })
    expect(records.map((x) => x.record_id)).toEqual([r.record_id])
    const bad = await failure(pc.flush({ scope_id, limit: 0 }))
    expect([bad.code, bad.status]).toEqual(['invalid_request', 422])
  })

  it('lists scopes, reads sources and the journal, and fetches the contract', async () => {
    const pc = client(server.url)
    const scope_id = `${SCOPE}/browse`
    await pc.captureContent({ scope_id, source_id: 'ev', content: 'Browsed evidence' })
    await pc.remember({
      scope_id,
      entries: [{ kind: 'fact', text: 'Browsed', sources: [{ name: 'content', source_id: 'ev' }] }],
    })
    const { scopes, next_after } = await pc.listScopes({ after: `${SCOPE}/aaa`, limit: 1 })
    expect(scopes[0]).toMatchObject({ scope_id, memory_count: 1, high_watermark: 1 })
    expect(next_after).toBe(scope_id)
    const { sources } = await pc.getSources({ scope_id, source_ids: ['ev'] })
    expect(sources[0]).toMatchObject({ content: 'Browsed evidence', status: 'pending' })
    const journal = await pc.listSources({ scope_id })
    expect(journal).toMatchObject({ cursor: 0, high_watermark: 1, next_after: null })
    const missing = await failure(pc.getSources({ scope_id, source_ids: ['nope'] }))
    expect([missing.code, missing.status]).toEqual(['source_not_found', 404])
    const dry = await pc.redact({ scope_id, source_id: 'ev', dry_run: true })
    expect(dry.items).toEqual([
      expect.objectContaining({ source_id: 'ev', status: 'would_redact' }),
    ])
    const unknown = await failure(pc.redact({ scope_id, source_id: 'nope' }))
    expect([unknown.code, unknown.status]).toEqual(['source_not_found', 404])
    const doc = await pc.openapi()
    expect(doc.openapi).toBe('3.1.0')
    const metrics = await pc.metrics()
    expect(metrics).toContain('# TYPE powercontext_http_requests_total counter')
    expect(metrics).toMatch(/powercontext_searches_total\{mode="fts"\} \d+/)
  })

  it('prepares context for a query and the session brief', async () => {
    const pc = client(server.url)
    const scope_id = `${SCOPE}/prepare`
    await pc.remember({
      scope_id,
      entries: [
        { kind: 'constraint', text: 'Never commit generated files.' },
        { kind: 'fact', text: 'The build writes generated files to dist/.' },
      ],
    })
    const recall = await pc.prepareContext({ scope_id, query: 'where do generated files go?' })
    expect(recall).toMatchObject({ schema: 'powercontext.prepared-context.v1', status: 'ready' })
    expect(recall.content).toContain('The build writes generated files to dist/.')
    const brief = await pc.prepareContext({ scope_id, max_bytes: 1024 })
    expect(brief.content).toContain('Never commit generated files.')
    expect(brief.content).not.toContain('dist/')
    const bad = await failure(pc.prepareContext({ scope_id, query: 'x', max_bytes: 100 }))
    expect([bad.code, bad.status]).toEqual(['invalid_request', 422])
    // A prepare that names its session leaves a receipt: refs, never text.
    const receipt = { host: 'codex', session_id: 'client-e2e', event: 'session_start' }
    const given = await pc.prepareContext({ scope_id, max_bytes: 1024, receipt })
    const page = await pc.contextReceipts({ scope_id, session_id: 'client-e2e' })
    expect(page.receipts.map((r) => [r.kind, r.content_bytes])).toEqual([
      ['brief', given.content_bytes],
    ])
    expect(JSON.stringify(page)).not.toContain('Never commit')
    // Claude Code's http hook route: the project of `/` holds nothing, so the output is empty.
    const hook = await pc.claudeCodeHook({
      hook_event_name: 'UserPromptSubmit',
      session_id: 's',
      cwd: '/',
      prompt: 'where do generated files go?',
    })
    expect(hook).toEqual({})
  })

  it('covered every contract operation with a validated response', () => {
    const seen = new Set(recorder.seen.filter((r) => r.status < 300).map((r) => r.operationId))
    expect([...seen].sort()).toEqual(OPERATIONS.map((o) => o.operationId).sort())
  })
})

describe('client with auth', () => {
  it('is refused without a token or with a wrong one, keeping the request id', async () => {
    for (const token of [undefined, 'wrong-token']) {
      const pc = client(authServer.url, token)
      const e = await failure(pc.capabilities({ requestId: 'e2e:auth' }))
      expect(e).toMatchObject({ code: 'unauthorized', status: 401, requestId: 'e2e:auth' })
      const w = await failure(
        pc.remember({ scope_id: SCOPE, entries: [{ kind: 'fact', text: 'x' }] }),
      )
      expect(w.code).toBe('unauthorized')
      const m = await failure(pc.metrics({ requestId: 'e2e:metrics' }))
      expect(m).toMatchObject({ code: 'unauthorized', status: 401, requestId: 'e2e:metrics' })
    }
  })

  it('works with the token; health stays public', async () => {
    const pc = client(authServer.url, TOKEN)
    expect((await pc.capabilities()).version).toBe('0.1.0')
    const r = await pc.remember({
      scope_id: SCOPE,
      entries: [{ kind: 'fact', text: 'authorized' }],
    })
    expect(r.results[0]?.status).toBe('created')
    const anonymous = client(authServer.url)
    expect(await anonymous.live()).toEqual({ status: 'ok' })
    expect((await anonymous.ready()).status).toBe('ready')
  })

  it('a server without auth ignores a token', async () => {
    expect((await client(server.url, 'any-token').capabilities()).version).toBe('0.1.0')
  })
})

describe('client before the runtime is bound', () => {
  it('reports not_ready as a value and runtime_not_ready as an error', async () => {
    const pc = client(unboundUrl)
    expect(await pc.live()).toEqual({ status: 'ok' })
    expect(await pc.ready()).toEqual({ status: 'not_ready', checks: { runtime: 'not_ready' } })
    const e = await failure(
      pc.search({ scope_id: SCOPE, query: 'anything' }, { requestId: 'e2e:nr' }),
    )
    expect(e).toMatchObject({ code: 'runtime_not_ready', status: 503, requestId: 'e2e:nr' })
    expect((await failure(pc.capabilities())).code).toBe('runtime_not_ready')
    expect(recorder.seen).toContainEqual({ operationId: 'ready', status: 503 })
  })
})
