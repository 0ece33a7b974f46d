/**
 * Demo data for the web console, written through the public API (the typed client): the e2e
 * tests, the screenshot script and the console benchmark all start from it.
 */
import { citationsOf } from '../../integrations/shared/session-state.mjs'
import type { Memory, PowerContextClient } from '../../src/client/index.js'

export const DEMO_SCOPE = 'project:acme/api'

export interface DemoIds {
  /** Active, at revision 3 (updated twice), with evidence. */
  readonly edited: string
  /** Forgotten. */
  readonly forgotten: string
  /** A,B→C; C,D→E: A, B, C, D merged, E the active end point. */
  readonly a: string
  readonly b: string
  readonly c: string
  readonly d: string
  readonly e: string
  /** Two active memories left to merge by hand. */
  readonly free: readonly [Memory, Memory]
  /** An agent session the hooks gave a brief and a recall (receipts). */
  readonly session: string
}

/** Agent sessions of the demo, as the hooks name them: each gets the brief, then a recall. */
const DEMO_SESSIONS = [
  {
    host: 'claude-code',
    session_id: '5d0c7a2e-claude-demo',
    prompt: 'how does CI install dependencies and how are releases tagged',
  },
  { host: 'codex', session_id: '019a66f1-codex-demo', prompt: 'which Node version does CI use' },
] as const

/** Captures evidence, remembers, edits, forgets, merges twice and flushes one structured source. */
export async function seedDemo(pc: PowerContextClient, scope = DEMO_SCOPE): Promise<DemoIds> {
  await pc.captureContent({
    scope_id: scope,
    source_id: 'pr-412',
    content:
      'Review of PR #412: the gateway retries POST requests; that is only safe for idempotent handlers. Agreed to add idempotency keys.',
    media_type: 'text/markdown',
    metadata: { url: 'https://git.example/acme/api/pull/412', author: 'dana' },
    occurred_at: '2025-04-02T09:30:00Z',
  })
  await pc.captureContent({
    scope_id: scope,
    source_id: 'standup-0403',
    content: 'Standup 3 April: retries stay at 3 attempts with jitter; timeouts 2 s per try.',
    metadata: { meeting: 'standup' },
  })
  const ev = (id: string) => [{ name: 'content' as const, source_id: id }]
  const r = await pc.remember({
    scope_id: scope,
    entries: [
      {
        kind: 'decision',
        text: 'The gateway retries POST requests twice.',
        sources: ev('pr-412'),
      },
      { kind: 'fact', text: 'CI runs on Node 20.' },
      { kind: 'fact', text: 'CI installs dependencies with npm ci.' },
      { kind: 'constraint', text: 'Never log request bodies.' },
      { kind: 'preference', text: 'Logs are JSON lines.' },
      { kind: 'fact', text: 'The staging database is MariaDB 10.11.' },
      { kind: 'working_note', text: 'Investigating flaky retry test on macOS.' },
      { kind: 'fact', text: 'Releases are tagged vX.Y.Z.' },
      { kind: 'fact', text: 'Release notes live in CHANGELOG.md.' },
    ],
  })
  const m = r.results.map((x) => x.memory)
  const id = (i: number) => m[i]!.memory_ref.artifact_id
  const u1 = await pc.update({
    scope_id: scope,
    memory_ref: m[0]!.memory_ref,
    text: 'The gateway retries idempotent POST requests twice, with idempotency keys.',
    sources: ev('standup-0403'),
    reason: 'PR #412 review',
  })
  await pc.update({
    scope_id: scope,
    memory_ref: u1.memory.memory_ref,
    text: 'The gateway retries idempotent POST requests up to 3 times with jitter, using idempotency keys.',
    reason: 'standup 3 April',
  })
  await pc.forget({ scope_id: scope, memory_id: id(6), reason: 'fixed' })
  const c = await pc.merge({
    scope_id: scope,
    inputs: [m[1]!.memory_ref, m[2]!.memory_ref],
    kind: 'fact',
    text: 'CI runs npm ci on Node 20.',
    reason: 'same topic',
  })
  const e = await pc.merge({
    scope_id: scope,
    inputs: [c.memory.memory_ref, m[5]!.memory_ref],
    kind: 'fact',
    text: 'CI runs npm ci on Node 20 against MariaDB 10.11.',
    reason: 'CI setup in one place',
  })
  await pc.captureContent({
    scope_id: scope,
    source_id: 'notes-0405',
    media_type: 'application/vnd.powercontext.memory+json',
    content: JSON.stringify({
      entries: [{ kind: 'decision', text: 'Error responses use one JSON envelope.' }],
    }),
  })
  await pc.captureContent({
    scope_id: scope,
    source_id: 'chat-0406',
    content: 'Maybe we should look at HTTP/3 some day.',
    metadata: { channel: '#api' },
  })
  await pc.flush({ scope_id: scope, limit: 3 })
  await pc.remember({
    scope_id: 'personal:dana',
    entries: [{ kind: 'preference', text: 'Prefers small pull requests.' }],
  })
  for (const { host, session_id, prompt } of DEMO_SESSIONS) {
    const event = (name: string) => ({ host, session_id, event: name })
    // As the hooks do: the recall leaves out what the brief already gave the session.
    const brief = await pc.prepareContext({ scope_id: scope, receipt: event('session_start') })
    await pc.prepareContext({
      scope_id: scope,
      query: prompt,
      exclude_refs: citationsOf(brief.content ?? ''),
      receipt: event('user_prompt_submit'),
    })
  }
  return {
    session: DEMO_SESSIONS[0].session_id,
    edited: id(0),
    forgotten: id(6),
    a: id(1),
    b: id(2),
    c: c.memory.memory_ref.artifact_id,
    d: id(5),
    e: e.memory.memory_ref.artifact_id,
    free: [m[7]!, m[8]!],
  }
}
