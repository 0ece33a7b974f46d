/*
 * Conformance: the secret gate. Every write path refuses a text carrying a credential with
 * `secret_detected` (the field and the rule in `details`, never the secret) and writes nothing:
 * remember, update, merge, forget and restore reasons, capture content and metadata, import.
 * The corpus' rates per path are measured in test/storage/secret-corpus.test.ts.
 */
import { expect } from 'vitest'

import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'
import { secretCorpus } from '../support/secret-corpus.js'
import { exportWithText } from '../support/secret-paths.js'
import type { Area, ConformanceSuite } from './harness.case.js'
import { expectCode, expectEmptyScope, newScope, rememberOne, snapshot } from './harness.case.js'

// One credential of each kind in each form: every 23rd text of the corpus, and the cases.
const SAMPLES = [
  ...secretCorpus(1)
    .filter((_s, i) => i % 23 === 0)
    .map((s) => s.text),
  ['DB_PASSWORD=', 'Staging', '2026!x'].join(''),
  `AWS_SECRET_ACCESS_KEY=${'wJalrXUtnFEMIK7MDENG'}${'bPxRfiCYzq8dQ2vT5wLm'}`,
  `deploy token ${'ghp_'}${'aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6'}`,
  `postgres://app:${'Pa55w0rd'}x@db.internal:5432/orders`,
]

/** Awaits a refused write: `secret_detected` naming `field`, with no byte of `text` in the error. */
async function refused(write: Promise<unknown>, field: string, text: string): Promise<void> {
  const err = await expectCode(write, 'secret_detected')
  expect(err.details?.['field']).toBe(field)
  expect(typeof err.details?.['rule']).toBe('string')
  const quoted = JSON.stringify({ message: err.message, details: err.details })
  for (const word of text.split(/[\s"'=:,{}]+/).filter((w) => w.length >= 12))
    expect(quoted).not.toContain(word)
}

async function twoMemories(b: MemoryBackend, scopeId: string) {
  const a = await rememberOne(b, scopeId, { kind: 'fact', text: 'first clean note' })
  const c = await rememberOne(b, scopeId, { kind: 'fact', text: 'second clean note' })
  return [a, c] as const
}

export function secretsArea(suite: ConformanceSuite): void {
  suite.area('secret gate', (t: Area) => {
    t.test('remember refuses a credential in the text or the reason, writing nothing', async () => {
      for (const text of SAMPLES) {
        const scopeId = newScope()
        await refused(
          t.backend.remember({
            scopeId,
            entries: [
              { kind: 'fact', text: 'clean' },
              { kind: 'fact', text },
            ],
          }),
          'entries[1].text',
          text,
        )
        await expectEmptyScope(t.backend, scopeId)
      }
      const scopeId = newScope()
      await refused(
        t.backend.remember({
          scopeId,
          entries: [{ kind: 'fact', text: 'clean', reason: SAMPLES[1]! }],
        }),
        'entries[0].reason',
        SAMPLES[1]!,
      )
      await expectEmptyScope(t.backend, scopeId)
    })

    t.test('update and merge refuse a credential in the new text, writing nothing', async () => {
      for (const text of SAMPLES) {
        const scopeId = newScope()
        const [a, b] = await twoMemories(t.backend, scopeId)
        const before = await snapshot(t.backend, scopeId, a.memoryRef.artifactId)
        await refused(t.backend.update({ scopeId, memoryRef: a.memoryRef, text }), 'text', text)
        const inputs = [a.memoryRef, b.memoryRef]
        await refused(t.backend.merge({ scopeId, inputs, kind: 'fact', text }), 'text', text)
        expect(await snapshot(t.backend, scopeId, a.memoryRef.artifactId)).toEqual(before)
      }
    })

    t.test('forget and restore refuse a credential in the reason', async () => {
      const scopeId = newScope()
      const [a] = await twoMemories(t.backend, scopeId)
      const memoryId = a.memoryRef.artifactId
      const before = await snapshot(t.backend, scopeId, memoryId)
      await refused(
        t.backend.forget({ scopeId, memoryId, reason: SAMPLES[0]! }),
        'reason',
        SAMPLES[0]!,
      )
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(before)
      await t.backend.forget({ scopeId, memoryId, reason: 'obsolete' })
      const forgotten = await snapshot(t.backend, scopeId, memoryId)
      await refused(
        t.backend.restore({ scopeId, memoryId, reason: SAMPLES[2]! }),
        'reason',
        SAMPLES[2]!,
      )
      expect(await snapshot(t.backend, scopeId, memoryId)).toEqual(forgotten)
    })

    t.test(
      'capture refuses a credential in the content or the metadata, journaling nothing',
      async () => {
        for (const text of SAMPLES) {
          const scopeId = newScope()
          await refused(
            t.backend.captureSource({ scopeId, sourceId: 's1', content: text }),
            'content',
            text,
          )
          await refused(
            t.backend.captureSource({
              scopeId,
              sourceId: 's2',
              content: 'clean',
              metadata: { session: { note: text } },
            }),
            'metadata.session.note',
            text,
          )
          const journal = await t.backend.listSources({ scopeId })
          expect(journal.sources).toEqual([])
          expect(journal.highWatermark).toBe(0)
        }
      },
    )

    t.test(
      'import refuses an export holding a credential, leaving the database empty',
      async () => {
        const [source, target] = [await t.open(), await t.open()]
        const records = await exportWithText(source, SAMPLES[3]!)
        const version = records.find((r) => r.type === 'version')
        expect(version?.type === 'version' && version.row.memoryId).toBeTruthy()
        const id = version?.type === 'version' ? version.row.memoryId : ''
        await refused(target.importRows(records), `version ${id}@1 text`, SAMPLES[3]!)
        const after: unknown[] = []
        await target.exportRows((r) => void after.push(r))
        expect(
          after.filter(
            (r) =>
              (r as { type: string }).type !== 'header' && (r as { type: string }).type !== 'end',
          ),
        ).toEqual([])
      },
    )
  })
}
