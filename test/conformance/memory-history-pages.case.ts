/*
 * Conformance: a memory's history comes a page at a time (docs/http-api.md "Bounded answers"):
 * versions oldest first up to HISTORY_RESPONSE_BYTES_MAX per answer, `nextAfter` continuing; every
 * version and every transition is seen exactly once, in order; merges come on the first page.
 */
import { expect } from 'vitest'

import type { HistoryResult } from '../../src/storage/spi/memory-backend.js'
import {
  HISTORY_RESPONSE_BYTES_MAX,
  LIST_RESPONSE_BYTES_MAX,
} from '../../src/storage/spi/memory-commands.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, rememberOne, unsafe } from './harness.case.js'

/** Versions of ≈ 8.7 KB: three pages of the 1 MiB budget. */
const VERSIONS = 260

const textOf = (n: number): string => `v${n} ` + 'history text '.repeat(628) + 'end'

export function historyPagesArea(suite: ConformanceSuite): void {
  suite.area('history pages', (t) => {
    t.test(
      'many large versions: several pages, each version and transition once, in order',
      async () => {
        const scopeId = newScope()
        const memory = await rememberOne(t.backend, scopeId, { kind: 'fact', text: textOf(1) })
        const memoryId = memory.memoryRef.artifactId
        for (let n = 2; n <= VERSIONS; n += 1) {
          await t.backend.update({
            scopeId,
            memoryRef: { artifactId: memoryId, revision: n - 1 },
            text: textOf(n),
            reason: `step ${n} ` + 'r'.repeat(480),
          })
        }
        await t.backend.forget({
          scopeId,
          memoryId,
          expectedRevision: VERSIONS,
          reason: 'done',
        })
        const pages: HistoryResult[] = []
        let after: number | undefined
        do {
          const page = await t.backend.history({ scopeId, memoryId, after })
          pages.push(page)
          after = page.nextAfter ?? undefined
          const bytes = page.versions.reduce((n, v) => n + Buffer.byteLength(v.text), 0)
          expect(bytes).toBeLessThanOrEqual(HISTORY_RESPONSE_BYTES_MAX)
          expect([page.state, page.currentRevision]).toEqual(['forgotten', VERSIONS])
        } while (after !== undefined)
        expect(pages.length).toBeGreaterThanOrEqual(3)
        const revisions = pages.flatMap((p) => p.versions.map((v) => v.memoryRef.revision))
        expect(revisions).toEqual(Array.from({ length: VERSIONS }, (_, i) => i + 1))
        expect(pages.flatMap((p) => p.versions.map((v) => v.text))[VERSIONS - 1]).toBe(
          textOf(VERSIONS),
        )
        const seqs = pages.flatMap((p) => p.transitions.map((c) => c.seq))
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
        expect(new Set(seqs).size).toBe(VERSIONS + 1)
        expect(pages.at(-1)?.transitions.at(-1)).toMatchObject({ op: 'forget', reason: 'done' })
        // Each transition comes with the page holding the revision it made.
        for (const p of pages.slice(0, -1)) {
          const inPage = new Set(p.versions.map((v) => v.memoryRef.revision))
          for (const c of p.transitions) expect(inPage.has(c.toRevision ?? 0)).toBe(true)
        }
        // The whole history of a small memory is one page; past the end is an empty last page.
        const small = await rememberOne(t.backend, scopeId, { kind: 'fact', text: 'small' })
        const one = await t.backend.history({ scopeId, memoryId: small.memoryRef.artifactId })
        expect([one.versions.length, one.transitions.length, one.nextAfter]).toEqual([1, 1, null])
        const past = await t.backend.history({ scopeId, memoryId, after: VERSIONS })
        expect([past.versions, past.transitions, past.merges, past.nextAfter]).toEqual([
          [],
          [],
          [],
          null,
        ])
        for (const bad of [-1, 1.5, '2'])
          await expectCode(
            t.backend.history(unsafe({ scopeId, memoryId, after: bad })),
            'invalid_request',
          )
      },
    )

    t.test(
      'list pages end early at the byte budget; next_after reads every memory once',
      async () => {
        const scopeId = newScope()
        const count = 200
        for (let start = 1; start <= count; start += 50) {
          const { results } = await t.backend.remember({
            scopeId,
            entries: Array.from({ length: 50 }, (_, i) => ({
              kind: 'fact',
              text: textOf(start + i),
            })),
          })
          expect(results).toHaveLength(50)
        }
        const seen: string[] = []
        let after: string | undefined
        let pages = 0
        do {
          const page = await t.backend.list({ scopeId, limit: 500, after })
          pages += 1
          const bytes = page.memories.reduce((n, m) => n + Buffer.byteLength(m.text), 0)
          expect(bytes).toBeLessThanOrEqual(LIST_RESPONSE_BYTES_MAX)
          seen.push(...page.memories.map((m) => m.memoryRef.artifactId))
          after = page.nextAfter ?? undefined
          if (after !== undefined) expect(page.memories.at(-1)?.memoryRef.artifactId).toBe(after)
        } while (after !== undefined)
        expect(pages).toBeGreaterThanOrEqual(2)
        expect(seen).toHaveLength(count)
        expect(new Set(seen).size).toBe(count)
        expect(seen).toEqual([...seen].sort())
      },
    )
  })
}
