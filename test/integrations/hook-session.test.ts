/**
 * The hooks across one agent session, as Claude Code runs them (child processes, a real server,
 * a real git repository): a memory version is injected once per session — the brief's items are
 * not repeated by the prompt recall, nor a recall by the next one — until a compaction
 * (PreCompact, SessionStart `compact`) resets it; the state file is private, bounded and holds
 * refs only. A prompt over the query limit still gets recall. Stop records what the turn edited.
 */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { MAX_QUERY_BYTES, recallQuery } from '../../integrations/shared/budgets.mjs'
import {
  citationsOf,
  MAX_REFS,
  MAX_SESSIONS,
  SessionState,
} from '../../integrations/shared/session-state.mjs'
import { readTurn } from '../../integrations/shared/transcript.mjs'
import { useHookFixture } from '../support/hook-fixture.js'
import { diagnosticOf, runHookProcess } from '../support/hook-harness.js'

const SCOPE = 'git:github.com/acme/ledger'
const DECISION = 'Refunds go through the ledger service, never straight to the PSP.'
const CONSTRAINT = 'Never log card numbers in the ledger; mask all but the last four digits.'
const FACT = 'The ledger sandbox resets every night at 02:00 UTC.'
const fx = useHookFixture('claude-code', {
  origin: 'git@github.com:acme/ledger.git',
  scopeId: SCOPE,
  memories: [
    { kind: 'decision', text: DECISION },
    { kind: 'constraint', text: CONSTRAINT },
    { kind: 'fact', text: FACT },
  ],
})
const { base, repo, hook: HOOK } = fx
const STATE_DIR = join(base, 'state', 'powercontext', 'hook-sessions')
const env = () => fx.envFor(fx.server.url, { XDG_STATE_HOME: join(base, 'state') })

async function fire(event: string, session: string, extra: Record<string, unknown> = {}) {
  const run = await runHookProcess(
    HOOK,
    { session_id: session, transcript_path: null, cwd: repo, hook_event_name: event, ...extra },
    env(),
  )
  expect(run.code).toBe(0)
  expect(run.stderr).toBe('')
  if (run.stdout === '') return ''
  return (JSON.parse(run.stdout) as { hookSpecificOutput: { additionalContext: string } })
    .hookSpecificOutput.additionalContext
}
const ask = (session: string, prompt: string) => fire('UserPromptSubmit', session, { prompt })
const QUESTION = 'ledger refunds PSP card numbers sandbox resets'

describe('one session', () => {
  it('injects each memory version once: the brief, then only new recall', async () => {
    const brief = await fire('SessionStart', 'one', { source: 'startup' })
    expect(brief).toContain(DECISION)
    expect(brief).toContain(CONSTRAINT)
    const recall = await ask('one', QUESTION)
    expect(recall).toContain(FACT) // new to the session
    expect(recall).not.toContain(DECISION)
    expect(recall).not.toContain(CONSTRAINT)
    expect(await ask('one', QUESTION)).toBe('') // nothing new: nothing injected
    // Another session is given everything again.
    const other = await ask('two', QUESTION)
    for (const text of [DECISION, CONSTRAINT, FACT]) expect(other).toContain(text)
  })

  it('without a SessionStart run, the first prompt brings the brief, then recall, each once', async () => {
    const first = await ask('seven', QUESTION)
    const blocks = first.split('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
    expect(blocks).toHaveLength(3) // the brief's block, then the recall's
    expect(blocks[1]).toContain(CONSTRAINT)
    expect(blocks[1]).not.toContain(FACT) // facts come only with a query
    expect(blocks[2]).toContain(FACT)
    for (const text of [DECISION, CONSTRAINT, FACT]) expect(first.split(text)).toHaveLength(2) // exactly once
    expect(Buffer.byteLength(first, 'utf8')).toBeLessThanOrEqual(8000)
    expect(await ask('seven', QUESTION)).toBe('')
  })

  it('a compaction resets it: PreCompact, and SessionStart with source compact', async () => {
    await fire('SessionStart', 'three', { source: 'startup' })
    await ask('three', QUESTION)
    expect(await ask('three', QUESTION)).toBe('')
    await fire('PreCompact', 'three', { trigger: 'auto' })
    expect(await ask('three', QUESTION)).toContain(DECISION)
    expect(await fire('SessionStart', 'three', { source: 'resume' })).toBe('')
    expect(await fire('SessionStart', 'three', { source: 'compact' })).toContain(CONSTRAINT)
    expect(await fire('SessionStart', 'three', { source: 'clear' })).toContain(CONSTRAINT)
  })

  it('keeps its state private, bounded and free of memory text', async () => {
    await ask('four', QUESTION)
    expect(statSync(STATE_DIR).mode & 0o777).toBe(0o700)
    const files = readdirSync(STATE_DIR)
    expect(files.length).toBeGreaterThan(0)
    for (const f of files) {
      expect(statSync(join(STATE_DIR, f)).mode & 0o777).toBe(0o600)
      const text = readFileSync(join(STATE_DIR, f), 'utf8')
      expect(text).not.toMatch(/ledger|refund|card|sandbox|PSP/i)
      expect(JSON.parse(text)).toMatchObject({ v: 1, refs: expect.any(Array) })
    }
    const stateEnv = { POWERCONTEXT_HOOKS_STATE_DIR: join(base, 'bounded') }
    for (let i = 0; i < MAX_SESSIONS + 6; i++) {
      const s = SessionState.load(stateEnv, 'claude-code', `bulk-${i}`)
      s.addRefs(
        Array.from({ length: MAX_REFS + 10 }, (_, r) => ({
          artifact_id: `mem_${i}`,
          revision: r + 1,
        })),
      )
      s.save()
    }
    expect(readdirSync(join(base, 'bounded'))).toHaveLength(MAX_SESSIONS)
    const last = SessionState.load(stateEnv, 'claude-code', `bulk-${MAX_SESSIONS + 5}`)
    expect(last.refs).toHaveLength(MAX_REFS)
    expect(last.refs[0]).toBe(`mem_${MAX_SESSIONS + 5}:11`) // the oldest went first
  })
})

describe('a server that does not answer', () => {
  it('is asked once per run: a hung server costs one request timeout, not one per step', async () => {
    const run = await runHookProcess(
      HOOK,
      { session_id: 'hung', cwd: repo, hook_event_name: 'UserPromptSubmit', prompt: QUESTION },
      fx.envFor(`${fx.bad.url}/slow`, {
        XDG_STATE_HOME: join(base, 'state'),
        POWERCONTEXT_HOOKS_REQUEST_TIMEOUT_MS: '300',
      }),
    )
    expect(run).toMatchObject({ code: 0, stdout: '' })
    expect(diagnosticOf(run)).toMatchObject({
      outcome: 'timeout',
      steps: { brief: 'timeout', recall: 'skipped', capture: 'skipped' },
    })
  })
})

describe('a prompt longer than the query limit', () => {
  it('still gets recall: the query is its start, cut on a character boundary', async () => {
    const long = `${QUESTION} ${'lorem ipsum dolor '.repeat(600)}`
    expect(long.length).toBeGreaterThan(8192)
    expect(await ask('five', long)).toContain(DECISION)
  })

  it('never splits a surrogate pair, and measures UTF-8 after NFC', () => {
    const emoji = '😀' // 4 UTF-8 bytes, 2 UTF-16 units
    const q = recallQuery(`${'a'.repeat(MAX_QUERY_BYTES - 2)}${emoji}tail`)
    expect(q).toBe('a'.repeat(MAX_QUERY_BYTES - 2))
    expect(recallQuery('e\u0301')).toBe('é')
    const wide = recallQuery('é'.repeat(5000))
    expect(Buffer.byteLength(wide, 'utf8')).toBe(MAX_QUERY_BYTES)
    expect(wide.isWellFormed()).toBe(true)
    expect(recallQuery('short')).toBe('short')
  })
})

describe('Stop', () => {
  it("records the turn's edits and commits, not the work tree's other changes", async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
        cwd: repo,
        env: env(),
      })
    writeFileSync(join(repo, 'README.md'), 'x\n')
    git('add', 'README.md')
    git('commit', '-qm', 'init')
    // setup's files and an earlier edit: untracked or modified, not part of the turn
    writeFileSync(join(repo, '.mcp.json'), '{}\n')
    writeFileSync(join(repo, 'README.md'), 'y\n')
    await ask('six', 'Add the refund retry helper')
    writeFileSync(join(repo, 'committed.ts'), 'export {}\n')
    git('add', 'committed.ts')
    git('commit', '-qm', 'helper')
    const transcript = join(base, 'six.jsonl')
    const line = (o: unknown) => JSON.stringify(o)
    const user = (content: unknown) => line({ type: 'user', message: { role: 'user', content } })
    const tools = (...uses: [string, Record<string, string>][]) =>
      line({
        type: 'assistant',
        message: {
          role: 'assistant',
          content: uses.map(([name, input]) => ({ type: 'tool_use', name, input })),
        },
      })
    writeFileSync(
      transcript,
      [
        user('Earlier prompt'),
        tools(['Write', { file_path: join(repo, 'old.ts') }]),
        user('Add the refund retry helper'),
        tools(
          ['Edit', { file_path: join(repo, 'src/retry.ts') }],
          ['Read', { file_path: join(repo, 'src/read.ts') }],
          ['Write', { file_path: '/tmp/elsewhere.txt' }],
        ),
        user([{ type: 'tool_result', content: 'ok' }]),
        tools(
          ['Edit', { file_path: join(repo, 'src/retry.ts') }],
          ['NotebookEdit', { notebook_path: 'nb.ipynb' }],
        ),
      ].join('\n'),
    )
    const run = await runHookProcess(
      HOOK,
      {
        session_id: 'six',
        transcript_path: transcript,
        cwd: repo,
        hook_event_name: 'Stop',
        stop_hook_active: false,
        last_assistant_message: 'Added the helper.',
      },
      env(),
    )
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const outcome = (await fx.sources()).find((s) => s.media_type.includes('task-outcome'))
    const body = JSON.parse(outcome!.content) as { changed_paths: string[]; git_head: string }
    expect(body.changed_paths).toEqual([
      'src/retry.ts',
      '/tmp/elsewhere.txt',
      'nb.ipynb',
      'committed.ts',
    ])
    expect(body.git_head).toBe(git('rev-parse', 'HEAD').toString().trim())
  })

  it("reads Codex's apply_patch calls of the turn, as custom and function calls and run by a shell call", () => {
    const rollout = join(base, 'rollout.jsonl')
    const item = (payload: unknown) => JSON.stringify({ type: 'response_item', payload })
    const message = (role: string, text: string) =>
      item({ type: 'message', role, content: [{ type: 'input_text', text }] })
    const patch = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')
    writeFileSync(
      rollout,
      [
        message('user', 'first'),
        item({
          type: 'custom_tool_call',
          name: 'apply_patch',
          input: patch('*** Add File: old.ts'),
        }),
        message('user', '<environment_context>cwd</environment_context>'), // injected, not a prompt
        message('user', 'second'),
        item({
          type: 'custom_tool_call',
          name: 'apply_patch',
          input: patch('*** Update File: src/a.ts', '@@', '-x', '+y', '*** Move to: src/b.ts'),
        }),
        item({
          type: 'function_call',
          name: 'apply_patch',
          arguments: JSON.stringify({ input: patch('*** Delete File: gone.txt') }),
        }),
        item({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}' }),
        // How the pinned Codex has a model without an apply_patch tool edit: a shell command.
        item({
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({
            cmd: `apply_patch <<'EOF'\n${patch('*** Add File: src/c.ts', '+z')}\nEOF\n`,
          }),
        }),
        item({
          type: 'function_call',
          name: 'shell',
          arguments: JSON.stringify({
            command: ['bash', '-lc', `apply_patch <<'EOF'\n${patch('*** Update File: d.ts')}\nEOF`],
          }),
        }),
        item({ type: 'function_call', name: 'exec_command', arguments: '{"cmd":"cat x.ts"}' }),
      ].join('\n'),
    )
    const turn = readTurn(rollout)
    expect(turn.edits).toEqual(['src/a.ts', 'src/b.ts', 'gone.txt', 'src/c.ts', 'd.ts'])
    expect(turn.messages.map((m) => m.text)).toEqual(['first', 'second'])
  })
})

describe('receipts', () => {
  it('the server records what each prepare gave the session: refs, bytes, never text', async () => {
    const brief = await fire('SessionStart', 'receipts-1', { source: 'startup' })
    const recall = await ask('receipts-1', QUESTION)
    const res = await fetch(`${fx.server.url}/v1/context/receipts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scope_id: SCOPE, session_id: 'receipts-1' }),
    })
    expect(res.status).toBe(200)
    const text = await res.text()
    for (const memory of [DECISION, CONSTRAINT, FACT]) expect(text).not.toContain(memory)
    const page = JSON.parse(text) as {
      receipts: {
        host: string
        event: string
        kind: string
        content_bytes: number
        token_estimate: number
        items: { memory_ref: unknown }[]
      }[]
    }
    const shown = page.receipts.map((r) => [r.host, r.event, r.kind, r.content_bytes])
    expect(shown).toEqual([
      ['claude-code', 'user_prompt_submit', 'recall', Buffer.byteLength(recall, 'utf8')],
      ['claude-code', 'session_start', 'brief', Buffer.byteLength(brief, 'utf8')],
    ])
    expect(page.receipts.map((r) => r.items.map((i) => i.memory_ref))).toEqual([
      citationsOf(recall),
      citationsOf(brief),
    ])
    for (const r of page.receipts) expect(r.token_estimate).toBe(Math.ceil(r.content_bytes / 4))
  })
})
