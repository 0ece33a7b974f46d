/*
 * Conformance: freshness of code-anchored memories (docs/agents.md "Freshness"). The paths a
 * captured Git change or task outcome names are kept per scope; a memory citing such a source is
 * marked possibly stale once a later captured commit touches one of its paths (lookup, search
 * hits, the flush's stale-anchored read); a `keep` re-check clears the mark, `forget` forgets; the
 * projection is rebuilt from the journal; memories without anchors are never marked.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import { expect } from 'vitest'

import { TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } from '../../src/core/git-change.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, rememberOne, src, unsafe } from './harness.case.js'

const HEAD = 'a'.repeat(40)
const LATER = 'b'.repeat(40)
const OTHER = 'e'.repeat(40)

async function captureOutcome(backend: MemoryBackend, scopeId: string): Promise<void> {
  await backend.captureSource({
    scopeId,
    sourceId: 'outcome-1',
    content: JSON.stringify({
      task: 'retries',
      outcome: 'done',
      summary: 'payments retry 3 times',
      changed_paths: ['src/payments/retry.ts', 'src/payments/index.ts'],
      git_head: HEAD,
    }),
    mediaType: TASK_OUTCOME_MEDIA_TYPE,
  })
}

async function captureCommit(
  backend: MemoryBackend,
  scopeId: string,
  commit: string,
  path: string,
): Promise<string> {
  await sleep(3) // captured in a later millisecond than what came before
  const c = gitChangeSource({
    commit,
    parents: [HEAD],
    authorDate: '2026-12-01T10:00:00+00:00',
    message: `change ${path}`,
    paths: [{ status: 'M', path, additions: 1, deletions: 1 }],
  })
  await backend.captureSource({
    scopeId,
    sourceId: c.sourceId,
    content: c.content,
    mediaType: GIT_CHANGE_MEDIA_TYPE,
    metadata: c.metadata,
  })
  return c.sourceId
}

/** A scope with one anchored memory (from a task outcome) and one plain memory. */
async function anchored(backend: MemoryBackend) {
  const scopeId = newScope('fresh')
  await captureOutcome(backend, scopeId)
  const memory = await rememberOne(backend, scopeId, {
    kind: 'fact',
    text: 'payments retry three times',
    sources: [src('outcome-1')],
  })
  const plain = await rememberOne(backend, scopeId, { kind: 'fact', text: 'payments use stripe' })
  return { scopeId, memory, plain, refs: [memory.memoryRef, plain.memoryRef] }
}

const DRAFT = { mode: 'structured' as const, model: null, promptVersion: null, details: {} }

export function freshnessArea(suite: ConformanceSuite): void {
  suite.area('freshness', (t) => {
    t.test('a later commit touching an anchored path marks only the anchored memory', async () => {
      const { scopeId, memory, refs } = await anchored(t.backend)
      expect((await t.backend.freshness({ scopeId, refs })).size).toBe(0)
      await captureCommit(t.backend, scopeId, OTHER, 'docs/readme.md')
      expect((await t.backend.freshness({ scopeId, refs })).size).toBe(0)
      await captureCommit(t.backend, scopeId, LATER, 'src/payments/retry.ts')
      const marks = await t.backend.freshness({ scopeId, refs })
      expect([...marks.keys()]).toEqual([memory.memoryRef.artifactId])
      expect(marks.get(memory.memoryRef.artifactId)?.commits).toEqual([
        { commit: LATER, paths: ['src/payments/retry.ts'], capturedAt: expect.any(String) },
      ])
      const hits = (await t.backend.search({ scopeId, query: 'payments' })).hits
      const byId = new Map(hits.map((h) => [h.memoryRef.artifactId, h.stale]))
      expect(byId.get(memory.memoryRef.artifactId)?.commits[0]?.commit).toBe(LATER)
      expect(byId.get(refs[1]!.artifactId)).toBeUndefined()
      // An older version is not marked: only the current one is.
      const old = { ...memory.memoryRef, revision: 2 }
      expect((await t.backend.freshness({ scopeId, refs: [old] })).size).toBe(0)
    })

    t.test(
      'the anchor commit itself and a commit captured before the version mark nothing',
      async () => {
        const scopeId = newScope('fresh')
        await captureOutcome(t.backend, scopeId)
        await captureCommit(t.backend, scopeId, LATER, 'src/payments/retry.ts')
        await sleep(3)
        const memory = await rememberOne(t.backend, scopeId, {
          kind: 'fact',
          text: 'payments retry three times',
          sources: [src('outcome-1')],
        })
        await captureCommit(t.backend, scopeId, HEAD, 'src/payments/retry.ts')
        expect((await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })).size).toBe(0)
      },
    )

    t.test('the stale-anchored read, keep and forget re-checks', async () => {
      const { scopeId, memory } = await anchored(t.backend)
      const commit = await captureCommit(t.backend, scopeId, LATER, 'src/payments/index.ts')
      const stale = await t.backend.journal.staleAnchored({
        scopeId,
        paths: ['src/payments/index.ts'],
        limit: 10,
      })
      expect(stale.map((s) => s.memory.memoryRef)).toEqual([memory.memoryRef])
      const w = await t.backend.journal.window({ scopeId })
      const through = w.sources.at(-1)!.position
      const kept = await t.backend.journal.apply({
        scopeId,
        expected: w.cursor,
        through,
        decisions: [{ op: 'keep', target: memory.memoryRef, sources: [commit], reason: null }],
        record: DRAFT,
      })
      expect(kept.applied.map((a) => [a.op, a.status])).toEqual([['keep', 'kept']])
      expect(kept.changes).toEqual([])
      expect((await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })).size).toBe(0)
      // A newer commit marks it again; forget then forgets it.
      const next = await captureCommit(t.backend, scopeId, OTHER, 'src/payments/retry.ts')
      expect((await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })).size).toBe(1)
      const w2 = await t.backend.journal.window({ scopeId })
      const forgot = await t.backend.journal.apply({
        scopeId,
        expected: w2.cursor,
        through: w2.sources.at(-1)!.position,
        decisions: [{ op: 'forget', target: memory.memoryRef, sources: [next], reason: 'gone' }],
        record: DRAFT,
      })
      expect(forgot.changes.map((c) => c.op)).toEqual(['forget'])
      expect((await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })).size).toBe(0)
    })

    t.test(
      'a keep of a version that is not current is a revision conflict, nothing written',
      async () => {
        const { scopeId, memory } = await anchored(t.backend)
        const commit = await captureCommit(t.backend, scopeId, LATER, 'src/payments/retry.ts')
        const w = await t.backend.journal.window({ scopeId })
        await expectCode(
          t.backend.journal.apply({
            scopeId,
            expected: w.cursor,
            through: w.sources.at(-1)!.position,
            decisions: [
              {
                op: 'keep',
                target: { ...memory.memoryRef, revision: 7 },
                sources: [commit],
                reason: null,
              },
            ],
            record: DRAFT,
          }),
          'revision_conflict',
        )
        expect((await t.backend.journal.window({ scopeId })).cursor).toEqual(w.cursor)
        expect((await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })).size).toBe(1)
      },
    )

    t.test('rebuild restores the path projection from the journal', async () => {
      const { scopeId, memory } = await anchored(t.backend)
      await captureCommit(t.backend, scopeId, LATER, 'src/payments/retry.ts')
      await t.backend.rebuild()
      const marks = await t.backend.freshness({ scopeId, refs: [memory.memoryRef] })
      expect(marks.get(memory.memoryRef.artifactId)?.commits.map((c) => c.commit)).toEqual([LATER])
    })

    t.test('bad input: refs and paths are checked', async () => {
      const scopeId = newScope('fresh')
      const many = Array.from({ length: 257 }, () => ({ artifactId: 'mem_x', revision: 1 }))
      await expectCode(t.backend.freshness({ scopeId, refs: many }), 'invalid_request')
      await expectCode(t.backend.freshness(unsafe({ scopeId, refs: [{}] })), 'invalid_request')
      await expectCode(
        t.backend.journal.staleAnchored(unsafe({ scopeId, paths: [1], limit: 1 })),
        'invalid_request',
      )
    })
  })
}
