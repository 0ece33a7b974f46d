/**
 * The Claude Code hook program as Claude Code runs it: a child process, payloads shaped as Claude
 * Code sends them (docs: common fields session_id, transcript_path, cwd, hook_event_name; prompt;
 * source; stop_hook_active, last_assistant_message; trigger), against a real server on loopback
 * and a real temporary git repository. Failures (server down, 401, 404, slow, oversized,
 * malformed, redirect, bad payload) must exit 0, inject nothing and write one diagnostic line
 * that holds no prompt or memory text.
 */
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { useHookFixture } from '../support/hook-fixture.js'
import { diagnosticOf, runHookProcess, startMisbehavingServer } from '../support/hook-harness.js'

const SCOPE = 'git:github.com/acme/payments'
const MARKER = 'zebra-marker-7731' // in every prompt: must never reach a diagnostic
const MEMORY = 'Refunds go through the ledger service, never straight to the PSP.'
const fx = useHookFixture('claude-code', {
  origin: 'git@github.com:acme/payments.git',
  scopeId: SCOPE,
  memories: [
    { kind: 'decision', text: MEMORY },
    { kind: 'constraint', text: 'Never log card numbers; mask all but the last four digits.' },
    { kind: 'fact', text: 'The PSP sandbox resets every night at 02:00 UTC.' },
  ],
})
const { base, repo, hook: HOOK } = fx

let sessions = 0
// A new session per payload unless one is named: a session is not given the same memory twice.
const prompt = (text: string, extra: Record<string, unknown> = {}) => ({
  session_id: `sess-p${++sessions}`,
  transcript_path: join(base, 'transcript.jsonl'),
  cwd: repo,
  permission_mode: 'default',
  hook_event_name: 'UserPromptSubmit',
  prompt: text,
  ...extra,
})
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

describe('UserPromptSubmit', () => {
  it('injects the recall as hookSpecificOutput.additionalContext and captures the prompt once', async () => {
    const payload = prompt(`How do refunds reach the PSP? ${MARKER}`, {
      prompt_id: 'p-1',
      session_id: 'sess-1',
    })
    const run = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(run).toMatchObject({ code: 0, stderr: '' })
    const out = JSON.parse(run.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string }
    }
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit')
    const context = out.hookSpecificOutput.additionalContext
    expect(context).toContain('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
    expect(context).toContain(MEMORY)
    expect(context).not.toContain(MARKER) // the prompt is not part of its own recall

    const id = `claude-code-user-prompt:${sha256([SCOPE, 'sess-1', 'p-1', payload.prompt].join('\0'))}`
    const first = (await fx.sources()).filter((s) => s.source.source_id === id)
    expect(first).toHaveLength(1)
    expect(first[0]).toMatchObject({
      content: payload.prompt,
      metadata: {
        origin: 'claude-code',
        event: 'user_prompt_submit',
        cwd: repo,
        session_id: 'sess-1',
        prompt_id: 'p-1',
      },
    })
    // A rerun of the same payload (a retried hook) is the same source, not a new one.
    const before = (await fx.sources()).length
    const again = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(again).toMatchObject({ code: 0, stderr: '' })
    const after = await fx.sources()
    expect(after).toHaveLength(before)
    expect(after.find((s) => s.source.source_id === id)?.position).toBe(first[0]!.position)
  })

  it('nothing to recall: no output, the prompt is still captured, no diagnostic', async () => {
    // No session id: no session state, so no brief with the prompt either.
    const payload = prompt(`quokka ${MARKER} 1`, { session_id: undefined })
    const run = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    expect((await fx.sources()).some((s) => s.content === `quokka ${MARKER} 1`)).toBe(true)
  })

  it('a prompt carrying a secret is recalled for but never captured', async () => {
    const text = `How do refunds reach the PSP? password is Winter2024x`
    const run = await runHookProcess(HOOK, prompt(text), fx.envFor(fx.server.url))
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain(MEMORY)
    const diag = diagnosticOf(run)
    expect(diag).toMatchObject({ event: 'UserPromptSubmit', outcome: 'secret_withheld' })
    expect(run.stderr).not.toMatch(/refunds|Winter2024x|ledger/i)
    expect((await fx.sources()).some((s) => s.content.includes('Winter2024x'))).toBe(false)
  })

  it('POWERCONTEXT_HOOKS_CAPTURE=off captures nothing; recall still works', async () => {
    const text = `refunds ledger ${MARKER} capture-off`
    const run = await runHookProcess(
      HOOK,
      prompt(text),
      fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_CAPTURE: 'off' }),
    )
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(run.stdout).toContain('additionalContext')
    expect((await fx.sources()).some((s) => s.content === text)).toBe(false)
  })
})

describe('SessionStart', () => {
  it('injects the brief (constraints and decisions) without a query', async () => {
    const run = await runHookProcess(
      HOOK,
      {
        session_id: 'sess-2',
        transcript_path: null,
        cwd: repo,
        hook_event_name: 'SessionStart',
        source: 'startup',
      },
      fx.envFor(fx.server.url),
    )
    expect(run).toMatchObject({ code: 0, stderr: '' })
    const out = JSON.parse(run.stdout)
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart')
    expect(out.hookSpecificOutput.additionalContext).toContain('Never log card numbers')
    expect(out.hookSpecificOutput.additionalContext).toContain(MEMORY)
    expect(out.hookSpecificOutput.additionalContext).not.toContain('PSP sandbox') // facts need a query
  })
})

describe('Stop and PreCompact', () => {
  const transcript = join(base, 'session-3.jsonl')
  beforeAll(() => {
    const line = (o: unknown) => JSON.stringify(o)
    writeFileSync(
      transcript,
      [
        line({ type: 'user', message: { role: 'user', content: 'Make refunds idempotent' } }),
        line({
          type: 'assistant',
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'I will add an idempotency key.' },
              { type: 'tool_use', id: 't1', name: 'Edit', input: { file: 'x' } },
            ],
          },
        }),
        line({
          type: 'user',
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: 'TOOL OUTPUT NOT CAPTURED' },
            ],
          },
        }),
        line({
          type: 'user',
          message: { role: 'user', content: 'use AKIAIOSFODNN7EXAMPLE for the sandbox' },
        }),
        line({
          type: 'assistant',
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Refunds now carry an idempotency key; retries reuse it.' },
            ],
          },
        }),
        'not json',
      ].join('\n'),
    )
  })

  it('Stop captures the turn as a bounded task-outcome source, once', async () => {
    const payload = {
      session_id: 'sess-3',
      transcript_path: transcript,
      cwd: repo,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'Refunds now carry an idempotency key; retries reuse it.',
    }
    const run = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const outcomes = (await fx.sources()).filter(
      (s) => s.media_type === 'application/vnd.powercontext.task-outcome+json',
    )
    expect(outcomes).toHaveLength(1)
    const body = JSON.parse(outcomes[0]!.content)
    expect(body).toMatchObject({
      task: 'Claude Code turn', // the last prompt holds a key: it is not repeated
      outcome: 'turn ended',
      summary: 'Refunds now carry an idempotency key; retries reuse it.',
    })
    expect(outcomes[0]!.source.source_id).toMatch(/^claude-code-task-outcome:[0-9a-f]{64}$/)
    expect(outcomes[0]!.metadata).toMatchObject({
      origin: 'claude-code',
      event: 'stop',
      session_id: 'sess-3',
    })
    await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect((await fx.sources()).filter((s) => s.media_type.includes('task-outcome'))).toHaveLength(
      1,
    )
    // A Stop that Claude Code re-ran after a blocking hook captures nothing.
    const active = await runHookProcess(
      HOOK,
      { ...payload, stop_hook_active: true, last_assistant_message: 'other' },
      fx.envFor(fx.server.url),
    )
    expect(active).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('PreCompact captures the recent conversation text, no tool output, no secret', async () => {
    const run = await runHookProcess(
      HOOK,
      {
        session_id: 'sess-3',
        transcript_path: transcript,
        cwd: repo,
        hook_event_name: 'PreCompact',
        trigger: 'auto',
        custom_instructions: '',
      },
      fx.envFor(fx.server.url),
    )
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const compact = (await fx.sources()).filter((s) =>
      s.source.source_id.startsWith('claude-code-pre-compact:'),
    )
    expect(compact).toHaveLength(1)
    const text = compact[0]!.content
    expect(compact[0]!.media_type).toBe('text/markdown')
    expect(text).toContain('Make refunds idempotent')
    expect(text).toContain('Refunds now carry an idempotency key')
    expect(text).not.toContain('TOOL OUTPUT')
    expect(text).not.toContain('AKIA')
    expect(compact[0]!.metadata).toMatchObject({
      event: 'pre_compact',
      trigger: 'auto',
      messages: 3,
    })
  })
})

describe('fails open: exit 0, nothing injected, one diagnostic without prompt or memory text', () => {
  let closedUrl: string
  beforeAll(async () => {
    const probe = await startMisbehavingServer('http://127.0.0.1:1')
    closedUrl = probe.url
    await probe.close()
  })
  const payload = () => prompt(`How do refunds reach the PSP? ${MARKER}`)
  const cases: [string, () => Record<string, string | undefined>, string, number | undefined][] = [
    ['server down', () => fx.envFor(closedUrl), 'server_unavailable', undefined],
    ['401 without the token', () => fx.envFor(fx.authServer.url), 'authentication_failed', 401],
    [
      '401 with a wrong token',
      () =>
        fx.envFor(fx.authServer.url, { POWERCONTEXT_CLIENT_API_TOKEN: 'wrong-token-0123456789' }),
      'authentication_failed',
      401,
    ],
    ['404 (no such API)', () => fx.envFor(`${fx.server.url}/nope`), 'version_mismatch', 404],
    [
      'slow past the budget',
      () =>
        fx.envFor(`${fx.bad.url}/slow`, {
          POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS: '400',
          POWERCONTEXT_HOOKS_BUDGET_MS: '1500',
        }),
      'timeout',
      undefined,
    ],
    ['oversized response', () => fx.envFor(`${fx.bad.url}/big`), 'response_too_large', undefined],
    ['malformed envelope', () => fx.envFor(`${fx.bad.url}/bad`), 'invalid_response', undefined],
    ['not JSON', () => fx.envFor(`${fx.bad.url}/html`), 'invalid_response', undefined],
    ['a redirect', () => fx.envFor(`${fx.bad.url}/redirect`), 'redirect_refused', 302],
    [
      'plain http to another host',
      () => fx.envFor('http://example.com'),
      'invalid_settings',
      undefined,
    ],
  ]
  it.each(cases)('%s', async (_name, env, outcome, status) => {
    const run = await runHookProcess(HOOK, payload(), env())
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    const diag = diagnosticOf(run)
    expect(diag).toMatchObject({ component: 'powercontext.claude_code', outcome })
    if (status !== undefined) expect(diag['http_status']).toBe(status)
    expect(run.stderr).not.toContain(MARKER)
    expect(run.stderr).not.toMatch(/refunds|ledger|PSP/i)
  })

  it('the right token works against an authenticated server', async () => {
    const run = await runHookProcess(
      HOOK,
      payload(),
      fx.envFor(fx.authServer.url, { POWERCONTEXT_CLIENT_API_TOKEN: fx.authToken }),
    )
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' }) // nothing remembered there: empty
  })

  it.each([
    ['not JSON', 'this is not json'],
    ['an array', '[1, 2]'],
    ['no cwd', JSON.stringify({ hook_event_name: 'UserPromptSubmit', prompt: MARKER })],
    ['no prompt', JSON.stringify({ hook_event_name: 'UserPromptSubmit', cwd: repo })],
  ])('a malformed payload (%s)', async (_name, raw) => {
    const run = await runHookProcess(HOOK, raw, fx.envFor(fx.server.url))
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(diagnosticOf(run)).toMatchObject({ outcome: 'invalid_payload' })
    expect(run.stderr).not.toContain(MARKER)
  })

  it('an event it does not handle does nothing', async () => {
    const run = await runHookProcess(
      HOOK,
      { hook_event_name: 'Notification', cwd: repo, message: MARKER },
      fx.envFor(fx.server.url),
    )
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
  })
})
