/* Conformance: the receipt log — what prepared context gave each session, as refs only: pages
 * newest first by scope, session and memory, a memory's usage, the memories whose current version
 * sessions were given (for the brief), and pruning by age and count. */
import { expect } from 'vitest'

import { newReceiptId } from '../../src/core/ids.js'
import type { ArtifactRef } from '../../src/core/memory-model.js'
import type { Receipt, ReceiptsQuery } from '../../src/core/receipt-rules.js'
import type { ConformanceSuite } from './harness.case.js'
import { newScope, rememberOne } from './harness.case.js'

/** A receipt of `scopeId` given to `sessionId`, `minutesAgo` minutes ago, of these refs. */
function receipt(
  scopeId: string,
  sessionId: string,
  minutesAgo: number,
  refs: readonly ArtifactRef[],
): Receipt {
  const at = new Date(Date.now() - minutesAgo * 60_000)
  return {
    receiptId: newReceiptId(at.getTime()),
    scopeId,
    scopeIds: [scopeId, 'user:conformance'],
    host: 'claude-code',
    sessionId,
    event: refs.length > 1 ? 'session_start' : 'user_prompt_submit',
    kind: refs.length > 1 ? 'brief' : 'recall',
    status: refs.length === 0 ? 'empty' : 'ready',
    maxBytes: 4000,
    contentBytes: 100 * refs.length,
    tokenEstimate: 25 * refs.length,
    withinBudget: refs.length < 3,
    durationMs: 7,
    items: refs.map((memoryRef, i) => ({ memoryRef, scopeId, truncated: i === 2 })),
    createdAt: at.toISOString(),
  }
}

const query = (scopeId: string, more: Partial<ReceiptsQuery> = {}): ReceiptsQuery => ({
  scopeId,
  sessionId: undefined,
  memoryId: undefined,
  before: undefined,
  limit: 50,
  ...more,
})

export function receiptsArea(suite: ConformanceSuite): void {
  suite.area('receipts', (t) => {
    t.test('pages newest first by scope, session and memory, with usage', async () => {
      const scope = newScope('receipts')
      const [a, b, c] = [
        { artifactId: 'mem_a', revision: 1 },
        { artifactId: 'mem_b', revision: 3 },
        { artifactId: 'mem_c', revision: 1 },
      ]
      const written = [
        receipt(scope, 's1', 50, [a, b, c]),
        receipt(scope, 's1', 40, [a]),
        receipt(scope, 's2', 30, []),
        receipt(scope, 's2', 20, [b]),
        receipt(newScope('receipts-other'), 's2', 10, [b]),
      ]
      for (const r of written) await t.backend.receipts.record(r)

      const all = await t.backend.receipts.list(query(scope))
      expect(all.usage).toBeNull()
      expect(all.receipts).toEqual([written[3], written[2], written[1], written[0]])
      const s1 = await t.backend.receipts.list(query(scope, { sessionId: 's1' }))
      expect(s1.receipts.map((r) => r.receiptId)).toEqual([
        written[1]!.receiptId,
        written[0]!.receiptId,
      ])
      const ofB = await t.backend.receipts.list(query(scope, { memoryId: 'mem_b' }))
      expect(ofB.receipts.map((r) => r.receiptId)).toEqual([
        written[3]!.receiptId,
        written[0]!.receiptId,
      ])
      expect(ofB.usage).toEqual({ injections: 2, sessions: 2, lastAt: written[3]!.createdAt })
      const none = await t.backend.receipts.list(query(scope, { memoryId: 'mem_none' }))
      expect(none).toEqual({ receipts: [], usage: { injections: 0, sessions: 0, lastAt: null } })

      // Keyset pages: two at a time, each strictly older than the last of the page before.
      const first = await t.backend.receipts.list(query(scope, { limit: 2 }))
      const last = first.receipts.at(-1)!
      const second = await t.backend.receipts.list(
        query(scope, {
          limit: 2,
          before: { createdAt: last.createdAt, receiptId: last.receiptId },
        }),
      )
      expect([...first.receipts, ...second.receipts]).toEqual(all.receipts)
    })

    t.test('given: current versions of active memories, by distinct sessions', async () => {
      const scope = newScope('receipts-given')
      const kept = await rememberOne(t.backend, scope, {
        kind: 'constraint',
        text: 'never push to main',
      })
      const once = await rememberOne(t.backend, scope, {
        kind: 'constraint',
        text: 'run lint first',
      })
      const fixed = await rememberOne(t.backend, scope, { kind: 'preference', text: 'tabs' })
      const gone = await rememberOne(t.backend, scope, { kind: 'decision', text: 'use yarn' })
      const fact = await rememberOne(t.backend, scope, { kind: 'fact', text: 'CI takes 6 minutes' })
      const refs = [kept, fixed, gone, fact].map((m) => m.memoryRef)
      for (const session of ['s1', 's2', 's3'])
        await t.backend.receipts.record(receipt(scope, session, 5, refs))
      await t.backend.receipts.record(receipt(scope, 's1', 4, [once.memoryRef]))
      // Corrected and forgotten after they were given: neither counts any more.
      await t.backend.update({ scopeId: scope, memoryRef: fixed.memoryRef, text: 'spaces' })
      await t.backend.forget({ scopeId: scope, memoryId: gone.memoryRef.artifactId })

      const given = await t.backend.receipts.given({
        scopeIds: [scope],
        kinds: ['constraint', 'preference', 'decision'],
        window: 100,
        limit: 10,
      })
      expect(given).toEqual([
        { memoryId: kept.memoryRef.artifactId, scopeId: scope, sessions: 3 },
        { memoryId: once.memoryRef.artifactId, scopeId: scope, sessions: 1 },
      ])
      // Counted over the newest receipts only: the last one gave just `once`.
      const newest = await t.backend.receipts.given({
        scopeIds: [scope],
        kinds: ['constraint', 'preference', 'decision'],
        window: 1,
        limit: 10,
      })
      expect(newest).toEqual([{ memoryId: once.memoryRef.artifactId, scopeId: scope, sessions: 1 }])
      const otherScope = await t.backend.receipts.given({
        scopeIds: [newScope('receipts-none')],
        kinds: ['constraint'],
        window: 100,
        limit: 10,
      })
      expect(otherScope).toEqual([])
    })

    t.test('prunes by age, then the oldest beyond the count', async () => {
      const scope = newScope('receipts-prune')
      const ref = { artifactId: 'mem_p', revision: 1 }
      const old = [
        receipt(scope, 'old', 60 * 24 * 40, [ref]),
        receipt(scope, 'old', 60 * 24 * 31, [ref]),
      ]
      const recent = [1, 2, 3].map((i) => receipt(scope, 'new', -i, [ref]))
      for (const r of [...old, ...recent]) await t.backend.receipts.record(r)
      await t.backend.receipts.prune({ keepDays: 30, keepCount: 1_000_000 })
      const left = await t.backend.receipts.list(query(scope))
      expect(left.receipts.map((r) => r.sessionId)).toEqual(['new', 'new', 'new'])
      // The newest receipts of the database are this test's (stamped in the future): keep two.
      await t.backend.receipts.prune({ keepDays: 30, keepCount: 2 })
      const kept = await t.backend.receipts.list(query(scope))
      expect(kept.receipts.map((r) => r.receiptId)).toEqual([
        recent[2]!.receiptId,
        recent[1]!.receiptId,
      ])
      expect(await t.backend.receipts.prune({ keepDays: 30, keepCount: 2 })).toBe(0)
    })
  })
}
