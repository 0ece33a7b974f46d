/**
 * `POST /v1/hooks/claude-code` over a real server on loopback: the brief on a session's first
 * prompt and the recall, each memory version once per session, a reset by `PreCompact` and by
 * `SessionStart` after a compaction, the scope from `cwd` (a real Git checkout) or from the
 * `X-PowerContext-Scope` header, and typed 422s for payloads it cannot serve — never a 500.
 */
import { execFileSync } from 'node:child_process'

import { describe, expect, it } from 'vitest'

import { resolveScope } from '../../integrations/shared/scope.mjs'
import { assertErrorEnvelope, assertMatchesContract } from '../support/contract-assert.js'
import { useTempServer } from '../support/temp-server.js'

const t = useTempServer('pc-hook-route-')
const PREFERENCE = 'Prefer table-driven tests over one test per case in the payments code.'
const DECISION = 'Refunds go through the ledger service, never straight to the PSP.'
const PROMPT = 'How do refunds reach the PSP?'

let unique = 0

async function post(
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.server.url}/v1/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as Record<string, unknown>
  assertMatchesContract('claudeCodeHook', res.status, json)
  if (res.status >= 400) assertErrorEnvelope(json, res.headers.get('x-powercontext-request-id'))
  return { status: res.status, body: json }
}

const contextOf = (body: Record<string, unknown>): string =>
  (body['hookSpecificOutput'] as { additionalContext?: string } | undefined)?.additionalContext ??
  ''
const count = (text: string, part: string): number => text.split(part).length - 1

/** A checkout whose origin gives its scope, holding the preference and the decision. */
async function project(): Promise<{ dir: string; scope: string }> {
  const dir = t.tempDir()
  execFileSync('git', ['init', '-q', dir])
  execFileSync('git', [
    '-C',
    dir,
    'remote',
    'add',
    'origin',
    `git@github.com:acme/route${++unique}`,
  ])
  const scope = resolveScope({ cwd: dir, env: { PATH: process.env['PATH'] } }).scope_id
  const res = await fetch(`${t.server.url}/v1/memory/remember`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      scope_id: scope,
      entries: [
        { kind: 'preference', text: PREFERENCE },
        { kind: 'decision', text: DECISION },
      ],
    }),
  })
  expect(res.status).toBe(200)
  return { dir, scope }
}

const prompt = (dir: string, session: string, text = PROMPT) => ({
  hook_event_name: 'UserPromptSubmit',
  session_id: session,
  cwd: dir,
  prompt: text,
  transcript_path: '/nonexistent/transcript.jsonl',
  permission_mode: 'default',
})

describe('POST /v1/hooks/claude-code', () => {
  it('gives the brief and the recall once each in a session, again after a compaction', async () => {
    const { dir } = await project()
    const first = await post(prompt(dir, 's1'))
    expect(first.status).toBe(200)
    const context = contextOf(first.body)
    expect(first.body).toMatchObject({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit' } })
    expect(count(context, PREFERENCE)).toBe(1)
    expect(count(context, DECISION)).toBe(1)
    expect(Buffer.byteLength(context, 'utf8')).toBeLessThanOrEqual(8000)

    // The second prompt of the session: everything relevant was given already.
    expect((await post(prompt(dir, 's1'))).body).toEqual({})
    // Another session of the same project gets it all again.
    expect(contextOf((await post(prompt(dir, 's2'))).body)).toContain(DECISION)

    // A compaction drops what was given: the next prompt brings it again.
    const pre = { hook_event_name: 'PreCompact', session_id: 's1', cwd: dir, trigger: 'auto' }
    expect((await post(pre)).body).toEqual({})
    expect(contextOf((await post(prompt(dir, 's1'))).body)).toContain(PREFERENCE)

    // SessionStart after a compaction answers the brief itself; the next prompt does not repeat it.
    const start = { hook_event_name: 'SessionStart', session_id: 's1', cwd: dir, source: 'compact' }
    const brief = await post(start)
    expect(brief.body).toMatchObject({ hookSpecificOutput: { hookEventName: 'SessionStart' } })
    expect(contextOf(brief.body)).toContain(PREFERENCE)
    expect(contextOf((await post(prompt(dir, 's1'))).body)).not.toContain(PREFERENCE)
  })

  it('leaves a receipt of what each session was given, refs only', async () => {
    const { dir, scope } = await project()
    const given = contextOf((await post(prompt(dir, 'receipt-session'))).body)
    expect(given).toContain(PREFERENCE)
    // The receipt is written after the answer: read until it is there.
    let receipts: { host: string; event: string; kind: string; items: unknown[] }[] = []
    for (let i = 0; i < 50 && receipts.length < 2; i++) {
      const res = await fetch(`${t.server.url}/v1/context/receipts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ scope_id: scope, session_id: 'receipt-session' }),
      })
      expect(res.status).toBe(200)
      const page = (await res.json()) as { receipts: typeof receipts }
      receipts = page.receipts
      if (receipts.length < 2) await new Promise((r) => setTimeout(r, 50))
    }
    expect(receipts.map((r) => [r.host, r.event, r.kind]).sort()).toEqual([
      ['claude-code', 'user_prompt_submit', 'brief'],
      ['claude-code', 'user_prompt_submit', 'recall'],
    ])
    expect(JSON.stringify(receipts)).not.toContain(PREFERENCE)
  })

  it('recalls for a prompt over the query limit (cut on a character boundary)', async () => {
    const { dir } = await project()
    const long = `${PROMPT} ${'🙂'.repeat(5000)}`
    const res = await post(prompt(dir, 'long', long))
    expect(res.status).toBe(200)
    expect(contextOf(res.body)).toContain(DECISION)
  })

  it('takes the scope from X-PowerContext-Scope when it is sent', async () => {
    const { scope } = await project()
    const elsewhere = t.tempDir()
    const res = await post(prompt(elsewhere, 'header'), { 'x-powercontext-scope': scope })
    expect(contextOf(res.body)).toContain(DECISION)
    // An empty header (an unset variable in the hook's headers) means: from cwd.
    expect((await post(prompt(elsewhere, 'empty'), { 'x-powercontext-scope': '' })).body).toEqual(
      {},
    )
  })

  it('answers {} to the events it does not serve', async () => {
    const { dir } = await project()
    const stop = { hook_event_name: 'Stop', session_id: 'x', cwd: dir, stop_hook_active: false }
    expect(await post(stop)).toEqual({ status: 200, body: {} })
  })

  it('refuses payloads it cannot serve with a typed 422, writing nothing', async () => {
    const { dir } = await project()
    const bad: unknown[] = [
      { hook_event_name: 'UserPromptSubmit', cwd: dir, prompt: PROMPT },
      { ...prompt(dir, 'bad'), session_id: 7 },
      { ...prompt(dir, 'bad'), prompt: '   ' },
      { ...prompt(dir, 'bad'), prompt: undefined },
      { ...prompt(dir, 'bad'), cwd: 'relative/dir' },
      { ...prompt(dir, 'bad'), hook_event_name: '' },
      [prompt(dir, 'bad')],
    ]
    for (const body of bad) {
      const res = await post(body)
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect((res.body['error'] as { code: string }).code).toBe('invalid_request')
    }
    // The session was not started by any of them: its first valid prompt still gets the brief.
    expect(contextOf((await post(prompt(dir, 'bad'))).body)).toContain(PREFERENCE)
  })
})
