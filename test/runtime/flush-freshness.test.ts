/**
 * Freshness of code-anchored memories (docs/agents.md "Freshness"), end to end through the
 * runtime on a real SQLite file with the scripted chat server as the generation model: a memory
 * learnt from a task outcome is anchored to the paths it names; a later commit captured as
 * `capture git` sends it marks the memory possibly stale in recall, in the brief and in search;
 * the next flush re-checks it in one extra call (update, keep or forget) and the mark is gone.
 * Memories without anchors never change and cost no call.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import { beforeAll, describe, expect, it } from 'vitest'

import { TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } from '../../src/core/git-change.js'
import type { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { type ChatRequest, decision, proposal } from '../support/chat-server.js'
import { useScriptedModel } from '../support/scripted-model-runtime.js'

const { chat, open } = useScriptedModel('pc-freshness-')
let rt: MemoryRuntime
beforeAll(async () => {
  rt = await open()
})

let n = 0
const scope = (): string => `git:example.org/acme/freshness-${++n}`
const RETRY = 'Payments retry: a failed charge is retried 3 times (src/payments/retry.ts).'
const RETRY_5 = 'Payments retry: a failed charge is retried 5 times (src/payments/retry.ts).'
const HEAD = 'c'.repeat(40)
const LATER = 'd'.repeat(40)

const laterCommit = gitChangeSource({
  commit: LATER,
  parents: [HEAD],
  authorDate: '2026-12-01T10:00:00+00:00',
  message: 'fix: retry failed charges five times\n\nThe processor asks for five attempts.',
  paths: [{ status: 'M', path: 'src/payments/retry.ts', additions: 2, deletions: 2 }],
})

/** Session 1: a task outcome (as the Stop hook sends it) flushed into one memory. */
async function learn(scopeId: string): Promise<string> {
  await rt.captureSource({
    scopeId,
    sourceId: 'claude-code-task-outcome:s1',
    content: JSON.stringify({
      task: 'Make payment retries configurable',
      outcome: 'turn ended',
      summary: 'Payments retry 3 times; the count lives in src/payments/retry.ts.',
      changed_paths: ['src/payments/retry.ts'],
      git_head: HEAD,
    }),
    mediaType: TASK_OUTCOME_MEDIA_TYPE,
    metadata: { origin: 'claude-code', event: 'stop', cwd: '/p', session_id: 's1' },
  })
  chat.responder = (r) =>
    r.schemaName === 'memory_candidates'
      ? proposal({ kind: 'decision', text: RETRY, evidence: ['claude-code-task-outcome:s1'] })
      : decision('create')(r)
  const flushed = await rt.flush({ scopeId })
  expect(flushed.changes).toHaveLength(1)
  chat.reset()
  return flushed.changes[0]!.memoryId
}

/** A later commit touching the anchored path, captured as `capture git` sends it. */
async function commitLater(scopeId: string): Promise<void> {
  await sleep(5) // captured strictly after the memory's version was written
  await rt.captureSource({
    scopeId,
    sourceId: laterCommit.sourceId,
    content: laterCommit.content,
    mediaType: GIT_CHANGE_MEDIA_TYPE,
    metadata: laterCommit.metadata,
    occurredAt: laterCommit.occurredAt,
  })
}

/** The scripted answers of the flush of the commit: no new memory, then the re-check. */
function recheckAnswers(check: Record<string, unknown>) {
  return (r: ChatRequest) => {
    if (r.schemaName === 'memory_candidates') return proposal()
    if (r.schemaName === 'memory_recheck') return { json: { checks: [check] } }
    return decision('noop')(r)
  }
}

describe('a memory anchored to src/payments/retry.ts', () => {
  it('is marked in recall when it is shown from past the hits the search looked up', async () => {
    const scopeId = scope()
    const memoryId = await learn(scopeId)
    // Eight memories that outrank it for the query; recall that excludes them shows it first.
    const louder = Array.from({ length: 8 }, (_, i) => ({
      kind: 'fact',
      text: `Payments retry payments retry note ${i}: payments retry.`,
    }))
    await rt.remember({ scopeId, entries: louder })
    await commitLater(scopeId)
    const search = await rt.search({ scopeId, query: 'payments retry', limit: 16 })
    const at = search.hits.findIndex((h) => h.memoryRef.artifactId === memoryId)
    expect(at).toBeGreaterThanOrEqual(8)
    const excludeRefs = search.hits.slice(0, at).map((h) => h.memoryRef)
    const recall = await rt.prepareContext({ scopeId, query: 'payments retry', excludeRefs })
    expect(recall.items[0]!.memoryRef.artifactId).toBe(memoryId)
    expect(recall.items[0]!.stale?.commits.map((c) => c.commit)).toEqual([LATER])
  })

  it('is marked stale by a later commit in recall, brief and search; the next flush updates it', async () => {
    const scopeId = scope()
    const memoryId = await learn(scopeId)
    const before = await rt.prepareContext({ scopeId, query: 'payments retry' })
    expect(before.content).not.toContain('possibly stale')

    await commitLater(scopeId)
    const recall = await rt.prepareContext({ scopeId, query: 'payments retry' })
    expect(recall.items).toHaveLength(1)
    expect(recall.items[0]!.stale?.commits.map((c) => c.commit)).toEqual([LATER])
    expect(recall.content).toContain(
      `"stale":"possibly stale: src/payments/retry.ts changed in commit ${LATER.slice(0, 12)} after this memory was written; verify against the code before relying on it"`,
    )
    const brief = await rt.prepareContext({ scopeId })
    expect(brief.content).toContain(`changed in commit ${LATER.slice(0, 12)}`)
    const search = await rt.search({ scopeId, query: 'payments retry' })
    expect(search.hits[0]!.stale?.commits[0]).toMatchObject({
      commit: LATER,
      paths: ['src/payments/retry.ts'],
    })

    chat.responder = recheckAnswers({
      memory: 'm1',
      action: 'update',
      kind: 'decision',
      text: RETRY_5,
      reason: 'the commit raised the count',
    })
    const flushed = await rt.flush({ scopeId })
    const recheck = chat.calls('memory_recheck')
    expect(recheck).toHaveLength(1)
    const shown = recheck[0]!.user['memories'] as { text: string; commits: { commit: string }[] }[]
    expect(shown.map((m) => [m.text, m.commits.map((c) => c.commit)])).toEqual([[RETRY, [LATER]]])
    expect(flushed.changes.map((c) => [c.op, c.memoryId])).toEqual([['update', memoryId]])

    const after = await rt.prepareContext({ scopeId, query: 'payments retry' })
    expect(after.items.map((i) => [i.memoryRef, i.stale])).toEqual([
      [{ artifactId: memoryId, revision: 2 }, undefined],
    ])
    expect(after.content).toContain('retried 5 times')
    expect(after.content).not.toContain('possibly stale')
  })

  it('kept by the re-check: the same version loses the mark', async () => {
    const scopeId = scope()
    const memoryId = await learn(scopeId)
    await commitLater(scopeId)
    chat.responder = recheckAnswers({
      memory: 'm1',
      action: 'keep',
      kind: null,
      text: null,
      reason: null,
    })
    const flushed = await rt.flush({ scopeId })
    expect(flushed.changes).toEqual([])
    const search = await rt.search({ scopeId, query: 'payments retry' })
    expect(search.hits.map((h) => [h.memoryRef, h.stale])).toEqual([
      [{ artifactId: memoryId, revision: 1 }, undefined],
    ])
  })

  it('forgotten by the re-check', async () => {
    const scopeId = scope()
    const memoryId = await learn(scopeId)
    await commitLater(scopeId)
    chat.responder = recheckAnswers({
      memory: 'm1',
      action: 'forget',
      kind: null,
      text: null,
      reason: 'gone',
    })
    const flushed = await rt.flush({ scopeId })
    expect(flushed.changes.map((c) => [c.op, c.memoryId])).toEqual([['forget', memoryId]])
    expect((await rt.search({ scopeId, query: 'payments retry' })).hits).toEqual([])
  })
})

describe('no anchors, no change', () => {
  it('a memory without Git or task-outcome evidence is never marked and costs no re-check call', async () => {
    const scopeId = scope()
    await rt.remember({ scopeId, entries: [{ kind: 'fact', text: RETRY }] })
    await commitLater(scopeId)
    chat.responder = recheckAnswers({})
    await rt.flush({ scopeId })
    expect(chat.calls('memory_recheck')).toEqual([])
    const recall = await rt.prepareContext({ scopeId, query: 'payments retry' })
    expect(recall.items[0]!.stale).toBeUndefined()
    expect(recall.content).not.toContain('stale')
  })
})
