/*
 * Conformance: source ids are the Python reference's (docs/storage.md "Identifiers"): Unicode text,
 * NFC, 1–256 characters, no control characters, no white space at either end. Captured, read,
 * listed, cited and erased exactly on every backend; a bad id is refused with nothing written.
 */
import { expect } from 'vitest'

import type { ConformanceSuite } from './harness.case.js'
import { expectCode, newScope, rememberOne, src, unsafe } from './harness.case.js'

const MINUTES = '会议纪要-2025-12-01'
const SPACED = '周会 记录 · Überblick'
const LONGEST = '纪'.repeat(255) + '😀'
const COMPOSED = 'Caf\u00e9 notes'
const DECOMPOSED = 'Cafe\u0301 notes'

export function sourceIdsArea(suite: ConformanceSuite): void {
  suite.area('source ids', (t) => {
    t.test('Unicode ids are captured, read, listed, cited and erased exactly', async () => {
      const scopeId = newScope()
      const ids = [MINUTES, SPACED, LONGEST, 'ascii-id']
      for (const [i, sourceId] of ids.entries()) {
        const res = await t.backend.captureSource({ scopeId, sourceId, content: `minutes ${i}` })
        expect(res).toMatchObject({ source: { sourceId }, position: i + 1, created: true })
      }
      const got = await t.backend.getSources({ scopeId, sourceIds: [LONGEST, MINUTES] })
      expect(got.sources.map((s) => [s.source.sourceId, s.content])).toEqual([
        [LONGEST, 'minutes 2'],
        [MINUTES, 'minutes 0'],
      ])
      const page = await t.backend.listSources({ scopeId })
      expect(page.sources.map((s) => s.source.sourceId)).toEqual(ids)
      const memory = await rememberOne(t.backend, scopeId, {
        kind: 'decision',
        text: 'Releases need owner approval',
        sources: [src(MINUTES), src(SPACED)],
      })
      const read = await t.backend.get({ scopeId, memoryId: memory.memoryRef.artifactId })
      expect(read.memory.sources.map((s) => s.sourceId).sort()).toEqual([MINUTES, SPACED].sort())
      const erased = await t.backend.redact({
        scopeId,
        target: { sourceId: MINUTES },
      })
      expect(erased.items.map((i) => [i.sourceId, i.status])).toEqual([[MINUTES, 'redacted']])
      const after = await t.backend.getSources({ scopeId, sourceIds: [MINUTES, SPACED] })
      expect(after.sources.map((s) => s.content)).toEqual(['[redacted]', 'minutes 1'])
      const changes = await t.backend.changes({ scopeId, since: 0 })
      expect(changes.redactions?.map((r) => r.sourceId)).toEqual([MINUTES])
    })

    t.test('two spellings of one id are one source (stored in NFC)', async () => {
      const scopeId = newScope()
      const first = await t.backend.captureSource({
        scopeId,
        sourceId: DECOMPOSED,
        content: 'same',
      })
      expect(first.source.sourceId).toBe(COMPOSED)
      const again = await t.backend.captureSource({ scopeId, sourceId: COMPOSED, content: 'same' })
      expect(again).toMatchObject({ position: first.position, created: false })
      await expectCode(
        t.backend.captureSource({ scopeId, sourceId: COMPOSED, content: 'other' }),
        'source_conflict',
      )
      const got = await t.backend.getSources({ scopeId, sourceIds: [DECOMPOSED, COMPOSED] })
      expect(got.sources.map((s) => s.source.sourceId)).toEqual([COMPOSED])
      // Case and width stay distinct: only canonical equivalence joins spellings.
      const upper = await t.backend.captureSource({
        scopeId,
        sourceId: COMPOSED.toUpperCase(),
        content: 'same',
      })
      expect(upper.created).toBe(true)
    })

    t.test(
      'control characters, edge white space or over 256 characters: refused, nothing written',
      async () => {
        const scopeId = newScope()
        const bad: [unknown, string][] = [
          ['会议\u0000纪要', 'must be text without control characters'],
          ['会议\n纪要', 'must be text without control characters'],
          ['note\u009b', 'must be text without control characters'],
          ['x\ud800', 'must be text without control characters'],
          [' 会议纪要', 'must not begin or end with white space'],
          ['会议纪要\u3000', 'must not begin or end with white space'],
          ['纪'.repeat(257), 'must be 1–256 characters'],
          ['😀'.repeat(257), 'must be 1–256 characters'],
          ['', 'must be 1–256 characters'],
        ]
        for (const [sourceId, message] of bad) {
          const err = await expectCode(
            t.backend.captureSource(unsafe({ scopeId, sourceId, content: 'x' })),
            'invalid_request',
          )
          expect(JSON.stringify(err.details), String(sourceId).slice(0, 20)).toContain(message)
          await expectCode(
            t.backend.getSources(unsafe({ scopeId, sourceIds: [sourceId] })),
            'invalid_request',
          )
        }
        const page = await t.backend.listSources({ scopeId })
        expect([page.sources, page.highWatermark]).toEqual([[], 0])
      },
    )
  })
}
