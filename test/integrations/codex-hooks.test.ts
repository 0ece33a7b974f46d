/**
 * The Codex hook program as Codex runs it: a child process, payloads with the fields of Codex's
 * hook input schemas (cwd, hook_event_name, model, permission_mode, session_id, transcript_path,
 * turn_id; prompt; stop_hook_active, last_assistant_message; trigger; source), against a real
 * server on loopback and a real temporary git repository, and a rollout transcript.
 */
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { beforeAll, describe, expect, it } from 'vitest'

import { useHookFixture } from '../support/hook-fixture.js'
import { diagnosticOf, runHookProcess } from '../support/hook-harness.js'

const SCOPE = 'git:gitlab.example.org/team/billing'
const MARKER = 'okapi-marker-5521'
const MEMORY = 'Invoices are numbered per tenant; never reuse a number after a void.'
const fx = useHookFixture('codex', {
  origin: 'https://ci:tok@GitLab.example.org/team/billing.git',
  scopeId: SCOPE,
  memories: [
    { kind: 'constraint', text: MEMORY },
    { kind: 'preference', text: 'Keep invoice PDFs under 200 KB.' },
  ],
})
const { base, repo, hook: HOOK } = fx

const rollout = join(base, 'rollout.jsonl')

const common = (event: string, extra: Record<string, unknown> = {}) => ({
  cwd: repo,
  hook_event_name: event,
  model: 'gpt-5-codex',
  permission_mode: 'default',
  session_id: 'thread-9',
  transcript_path: rollout,
  turn_id: 'turn-1',
  ...extra,
})
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

beforeAll(() => {
  const item = (role: string, type: string, text: string) =>
    JSON.stringify({
      timestamp: '2026-12-01T10:00:00Z',
      type: 'response_item',
      payload: { type: 'message', role, content: [{ type, text }] },
    })
  writeFileSync(
    rollout,
    [
      JSON.stringify({ type: 'session_meta', payload: { id: 'thread-9', cwd: repo } }),
      item('user', 'input_text', '<environment_context>cwd and shell</environment_context>'),
      item('user', 'input_text', 'Void invoice 1042 and reissue it'),
      JSON.stringify({ type: 'event_msg', payload: { type: 'user_message', message: 'dup' } }),
      JSON.stringify({
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'c1', output: 'TOOL OUTPUT' },
      }),
      item('assistant', 'output_text', 'Voided 1042 and issued 1043; 1042 stays retired.'),
    ].join('\n'),
  )
})

describe('Codex hooks', () => {
  it('UserPromptSubmit: recall injected, prompt captured under the reference id, once', async () => {
    const text = 'Can I reuse invoice numbers?'
    const payload = common('UserPromptSubmit', { prompt: text })
    const run = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(run).toMatchObject({ code: 0, stderr: '' })
    const out = JSON.parse(run.stdout)
    expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit')
    expect(out.hookSpecificOutput.additionalContext).toContain(MEMORY)
    const id = `codex-user-prompt:${sha256([SCOPE, 'thread-9', 'turn-1', text].join('\0'))}`
    const captured = (await fx.sources()).filter((s) => s.source.source_id === id)
    expect(captured).toHaveLength(1)
    expect(captured[0]!.metadata).toEqual({
      origin: 'codex',
      event: 'user_prompt_submit',
      cwd: repo,
      session_id: 'thread-9',
      turn_id: 'turn-1',
    })
    const count = (await fx.sources()).length
    await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(await fx.sources()).toHaveLength(count)
  })

  it('SessionStart: the brief', async () => {
    const run = await runHookProcess(
      HOOK,
      // A new thread: thread-9's first prompt already brought it the brief.
      common('SessionStart', { source: 'startup', session_id: 'thread-10' }),
      fx.envFor(fx.server.url),
    )
    expect(run).toMatchObject({ code: 0, stderr: '' })
    const out = JSON.parse(run.stdout)
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart')
    expect(out.hookSpecificOutput.additionalContext).toContain('Keep invoice PDFs under 200 KB.')
  })

  it('Stop: last_assistant_message and the rollout prompt as a task outcome', async () => {
    const payload = common('Stop', {
      stop_hook_active: false,
      last_assistant_message: 'Voided 1042 and issued 1043; 1042 stays retired.',
    })
    const run = await runHookProcess(HOOK, payload, fx.envFor(fx.server.url))
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const outcome = (await fx.sources()).filter((s) =>
      s.source.source_id.startsWith('codex-task-outcome:'),
    )
    expect(outcome).toHaveLength(1)
    expect(JSON.parse(outcome[0]!.content)).toEqual({
      task: 'Void invoice 1042 and reissue it',
      outcome: 'turn ended',
      summary: 'Voided 1042 and issued 1043; 1042 stays retired.',
    })
    expect(outcome[0]!.metadata).toMatchObject({
      origin: 'codex',
      event: 'stop',
      turn_id: 'turn-1',
    })
  })

  it('PreCompact: the rollout text without injected context or tool output', async () => {
    const run = await runHookProcess(
      HOOK,
      common('PreCompact', { trigger: 'manual' }),
      fx.envFor(fx.server.url),
    )
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const compact = (await fx.sources()).find((s) =>
      s.source.source_id.startsWith('codex-pre-compact:'),
    )
    expect(compact?.content).toBe(
      '## user\n\nVoid invoice 1042 and reissue it\n\n## assistant\n\nVoided 1042 and issued 1043; 1042 stays retired.',
    )
  })

  it('the skill is the Claude Code plugin’s skill, word for word', () => {
    const read = (host: string) =>
      readFileSync(
        fileURLToPath(
          new URL(`../../integrations/${host}/skills/project-memory/SKILL.md`, import.meta.url),
        ),
        'utf8',
      )
    expect(read('codex')).toBe(read('claude-code'))
  })
})

describe('Codex hooks fail open', () => {
  const prompt = () => common('UserPromptSubmit', { prompt: `invoice numbers ${MARKER}` })
  it.each([
    ['server down', () => fx.envFor('http://127.0.0.1:9'), 'server_unavailable'],
    ['401', () => fx.envFor(fx.authServer.url), 'authentication_failed'],
    ['404', () => fx.envFor(`${fx.server.url}/v0`), 'version_mismatch'],
    [
      'slow past the budget',
      () =>
        fx.envFor(`${fx.bad.url}/slow`, {
          POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS: '300',
          POWERCONTEXT_HOOKS_BUDGET_MS: '1200',
        }),
      'timeout',
    ],
    ['oversized response', () => fx.envFor(`${fx.bad.url}/big`), 'response_too_large'],
    ['malformed envelope', () => fx.envFor(`${fx.bad.url}/bad`), 'invalid_response'],
  ] as const)('%s', async (_name, env, outcome) => {
    const run = await runHookProcess(HOOK, prompt(), env())
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(diagnosticOf(run)).toMatchObject({ component: 'powercontext.codex', outcome })
    expect(run.stderr).not.toContain(MARKER)
    expect(run.stderr).not.toMatch(/invoice/i)
  })

  it('a malformed payload', async () => {
    const run = await runHookProcess(HOOK, '{"hook_event_name": "Stop", ', fx.envFor(fx.server.url))
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(diagnosticOf(run)).toMatchObject({ outcome: 'invalid_payload' })
  })
})
