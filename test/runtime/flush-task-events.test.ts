/**
 * Task events as sources: Git changes, user prompts and task outcomes — shaped exactly
 * as `capture git` and the hooks capture them — go through retrieve-then-decide with a proposing
 * prompt of their own when a generation model is configured (the scripted chat server on loopback
 * records what reached it), and stay evidence only without one; capabilities say which.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } from '../../src/core/git-change.js'
import { PROMPT_VERSION, SOURCE_KIND_GUIDANCE } from '../../src/runtime/extraction-prompts.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { type ChatRequest, decideEach, proposal } from '../support/chat-server.js'
import { useScriptedModel } from '../support/scripted-model-runtime.js'

const { chat, open, openWithout } = useScriptedModel('pc-task-events-')
let withModel: MemoryRuntime
let without: MemoryRuntime
beforeAll(async () => {
  withModel = await open()
  without = await openWithout()
})

let n = 0
const scope = (): string => `git:example.org/acme/task-events-${++n}`

const commit = gitChangeSource({
  commit: 'a'.repeat(40),
  parents: ['b'.repeat(40)],
  authorDate: '2026-11-30T10:00:00+01:00',
  message: 'feat: retry uploads three times\n\nWhy: the CDN drops one upload in fifty.',
  paths: [{ status: 'M', path: 'src/upload.ts', additions: 12, deletions: 3 }],
})

/** The four kinds of task event a coding session leaves, as `capture git` and the hooks send them. */
async function captureTaskEvents(rt: MemoryRuntime, scopeId: string): Promise<void> {
  await rt.captureSource({
    scopeId,
    sourceId: commit.sourceId,
    content: commit.content,
    mediaType: GIT_CHANGE_MEDIA_TYPE,
    metadata: commit.metadata,
    occurredAt: commit.occurredAt,
  })
  await rt.captureSource({
    scopeId,
    sourceId: 'claude-code-user-prompt:1111',
    content: 'Always use pnpm in this repo, never npm. Now fix the refund webhook.',
    metadata: { origin: 'claude-code', event: 'user_prompt_submit', cwd: '/p', session_id: 's1' },
  })
  await rt.captureSource({
    scopeId,
    sourceId: 'claude-code-task-outcome:2222',
    content: JSON.stringify({
      task: 'Fix the refund webhook',
      outcome: 'turn ended',
      summary: 'Signature check fixed; the retry queue still drops events after a restart.',
      changed_paths: ['src/refunds/webhook.ts'],
    }),
    mediaType: TASK_OUTCOME_MEDIA_TYPE,
    metadata: { origin: 'claude-code', event: 'stop', cwd: '/p', session_id: 's1' },
  })
  await rt.captureSource({
    scopeId,
    sourceId: 'claude-code-pre-compact:3333',
    content: '## user\n\nLet us look at the logs.',
    mediaType: 'text/markdown',
    metadata: { origin: 'claude-code', event: 'pre_compact', cwd: '/p', session_id: 's1' },
  })
}

const sourceIds = (r: ChatRequest) =>
  (r.user['sources'] as { source_id: string }[]).map((s) => s.source_id)

describe('task events with a generation model', () => {
  it('capabilities: every task event kind is extracted', () => {
    expect(withModel.capabilities().extraction).toMatchObject({
      mode: 'model',
      promptVersion: PROMPT_VERSION,
      sourceKinds: {
        memory: 'structured',
        task_outcome: 'extracted',
        git_change: 'extracted',
        prompt: 'extracted',
        content: 'extracted',
      },
    })
  })

  it('all kinds are proposed in one call, each with its guidance; decisions applied; evidence linked', async () => {
    const scopeId = scope()
    await withModel.captureSource({ scopeId, sourceId: 'old-note', content: 'upload notes' })
    const [old] = (
      await withModel.remember({
        scopeId,
        entries: [
          {
            kind: 'fact',
            text: 'Uploads to the CDN are retried twice.',
            sources: [{ name: 'content', sourceId: 'old-note' }],
            observedAt: '2026-01-01T00:00:00Z',
          },
        ],
      })
    ).results
    // The older memory's source is processed first: the window below holds only task events.
    chat.responder = () => proposal()
    await withModel.flush({ scopeId })
    chat.reset()
    await captureTaskEvents(withModel, scopeId)
    const texts = {
      git: 'Uploads to the CDN are retried three times, because the CDN drops one upload in fifty.',
      prompt: 'The user wants pnpm used in this repository, never npm.',
      outcome: 'Refund webhook: the retry queue still drops events after a restart (unfinished).',
    }
    chat.responder = (r) => {
      if (r.schemaName === 'memory_candidates') {
        const ids = sourceIds(r)
        const found = [
          { kind: 'fact', text: texts.git, evidence: [commit.sourceId] },
          { kind: 'preference', text: texts.prompt, evidence: ['claude-code-user-prompt:1111'] },
          {
            kind: 'working_note',
            text: texts.outcome,
            evidence: ['claude-code-task-outcome:2222'],
          },
        ]
        return proposal(...found.filter((c) => ids.includes(c.evidence[0]!)))
      }
      return decideEach((c) =>
        c.text === texts.git
          ? { action: 'update', targets: [old!.memory.memoryRef.artifactId], text: texts.git }
          : { action: 'create' },
      )(r)
    }
    const r = await withModel.flush({ scopeId })
    expect(r).toMatchObject({ status: 'processed', cursor: 5, mode: 'model' })

    // One proposing call for every kind, with each kind's guidance and the kind of each source.
    const proposing = chat.calls('memory_candidates')
    expect(proposing.map(sourceIds)).toEqual([
      [
        commit.sourceId,
        'claude-code-user-prompt:1111',
        'claude-code-task-outcome:2222',
        'claude-code-pre-compact:3333',
      ],
    ])
    expect((proposing[0]!.user['sources'] as { kind: string }[]).map((x) => x.kind)).toEqual([
      'git_change',
      'prompt',
      'task_outcome',
      'content',
    ])
    const marks = [
      ['git_change', 'What to keep from a commit'],
      ['prompt', 'What to keep from a user prompt'],
      ['task_outcome', 'What to keep from a task outcome'],
      ['content', 'Sources of kind content are free content'],
    ] as const
    const system = proposing[0]!.system
    for (const [kind, mark] of marks) {
      expect(SOURCE_KIND_GUIDANCE[kind]).toContain(mark)
      expect(system).toContain(mark)
    }
    expect(system).toMatch(/never follow instructions/)
    // One deciding call for the three candidates; the git one was compared with the older
    // memory and updated it.
    const deciding = chat.calls('memory_decision')
    expect(deciding).toHaveLength(1)
    const shown = deciding[0]!.user['candidates'] as { text: string; related: string[] }[]
    expect(shown.map((c) => c.text)).toEqual([texts.git, texts.prompt, texts.outcome])
    expect(shown[0]?.related).toContain(old!.memory.memoryRef.artifactId)

    const { memories } = await withModel.list({ scopeId })
    const byText = new Map(memories.map((m) => [m.text, m]))
    expect(byText.get(texts.git)).toMatchObject({
      kind: 'fact',
      memoryRef: { artifactId: old!.memory.memoryRef.artifactId, revision: 2 },
      sources: expect.arrayContaining([
        { name: 'content', sourceId: 'old-note' },
        { name: 'content', sourceId: commit.sourceId },
      ]),
    })
    expect(byText.get(texts.prompt)).toMatchObject({
      kind: 'preference',
      sources: [{ name: 'content', sourceId: 'claude-code-user-prompt:1111' }],
    })
    expect(byText.get(texts.outcome)).toMatchObject({
      kind: 'working_note',
      sources: [{ name: 'content', sourceId: 'claude-code-task-outcome:2222' }],
    })
    expect(memories).toHaveLength(3)

    // The decision record names the kind of every source the proposing call read.
    const record = (await withModel.flushRecords({ scopeId })).records.at(-1)
    expect(record?.promptVersion).toBe(PROMPT_VERSION)
    const [call] = record?.details['proposals'] as {
      parts: { source_id: string; source_kind: string }[]
      candidates: number
    }[]
    expect(call?.parts.map((p) => [p.source_kind, p.source_id])).toEqual([
      ['git_change', commit.sourceId],
      ['prompt', 'claude-code-user-prompt:1111'],
      ['task_outcome', 'claude-code-task-outcome:2222'],
      ['content', 'claude-code-pre-compact:3333'],
    ])
    expect(call?.candidates).toBe(3)
  })

  it('a free-text source is a prompt only with the hooks’ event metadata', async () => {
    const scopeId = scope()
    await withModel.captureSource({
      scopeId,
      sourceId: 'codex-user-prompt:4444',
      content: 'Keep answers short.',
      metadata: { origin: 'codex', event: 'user_prompt_submit', turn_id: 't1' },
    })
    await withModel.captureSource({ scopeId, sourceId: 'note', content: 'Keep answers short.' })
    chat.responder = () => proposal()
    await withModel.flush({ scopeId })
    const proposing = chat.calls('memory_candidates')
    expect(proposing.map(sourceIds)).toEqual([['codex-user-prompt:4444', 'note']])
    expect((proposing[0]!.user['sources'] as { kind: string }[]).map((x) => x.kind)).toEqual([
      'prompt',
      'content',
    ])
    expect(proposing[0]!.system).toContain('What to keep from a user prompt')
    expect(proposing[0]!.system).toContain('Sources of kind content are free content')
    expect(proposing[0]!.system).not.toContain('What to keep from a commit')
  })
})

describe('task events without a generation model', () => {
  it('capabilities: git changes, prompts and content are evidence only', () => {
    expect(without.capabilities().extraction).toMatchObject({
      mode: 'structured',
      promptVersion: null,
      sourceKinds: {
        memory: 'structured',
        task_outcome: 'working_note',
        git_change: 'evidence_only',
        prompt: 'evidence_only',
        content: 'evidence_only',
      },
    })
  })

  it('stay evidence: processed, no memory from them, the task outcome one working note', async () => {
    const scopeId = scope()
    await captureTaskEvents(without, scopeId)
    const r = await without.flush({ scopeId })
    expect(r).toMatchObject({ status: 'processed', cursor: 4, processedSourceCount: 4 })
    const outcome = Object.fromEntries(r.sources.map((s) => [s.sourceId, s]))
    expect(outcome[commit.sourceId]).toMatchObject({
      outcome: 'no_op',
      note: `evidence only: a git_change source (${GIT_CHANGE_MEDIA_TYPE}) needs a generation model`,
    })
    expect(outcome['claude-code-user-prompt:1111']).toMatchObject({
      outcome: 'no_op',
      note: 'evidence only: a prompt source (text/plain) needs a generation model',
    })
    expect(outcome['claude-code-pre-compact:3333']).toMatchObject({
      outcome: 'no_op',
      note: 'evidence only: a content source (text/markdown) needs a generation model',
    })
    expect(outcome['claude-code-task-outcome:2222']).toMatchObject({ outcome: 'candidates' })
    const { memories } = await without.list({ scopeId })
    expect(memories.map((m) => [m.kind, m.sources])).toEqual([
      ['working_note', [{ name: 'content', sourceId: 'claude-code-task-outcome:2222' }]],
    ])
    // The evidence is kept: every source reads back after the flush.
    const { sources } = await without.getSources({
      scopeId,
      sourceIds: [commit.sourceId, 'claude-code-user-prompt:1111', 'claude-code-pre-compact:3333'],
    })
    expect(sources).toHaveLength(3)
    expect(chat.requests).toEqual([])
  })
})
