/* Conformance: a restore over stored merge relations that break their invariants (an `admin
 * import` of a hand-edited export can write them) fails as `internal_error` naming the break —
 * never a client fault code — and verify reports the break. */
import { expect } from 'vitest'

import type { ExportRecord } from '../../src/storage/spi/export-types.js'
import type { ConformanceSuite } from './harness.case.js'
import { expectCode } from './harness.case.js'
import { Scene } from './merge-scene.case.js'

/** The records one exported record becomes in the edited export. */
type Edit = (r: ExportRecord) => ExportRecord[]

/** Another well-formed id: the last character changed. */
const otherId = (id: string): string => id.slice(0, -1) + (id.endsWith('0') ? '1' : '0')

export function mergeCorruptArea(suite: ConformanceSuite): void {
  suite.area('corrupted merge relations', (t) => {
    t.test(
      'restore refuses them as internal_error naming the break; verify reports them',
      async () => {
        const s = new Scene(t.backend)
        await s.addAll('A aardvark', 'B bison')
        await s.merge('C', ['A', 'B'], 'cheetah')
        const exported: ExportRecord[] = []
        await t.backend.exportRows((r) => {
          exported.push(JSON.parse(JSON.stringify(r)) as ExportRecord)
        })
        const [a, c] = [s.id('A'), s.id('C')]
        const mergeId = exported.find((r) => r.type === 'merge')?.row.mergeId ?? ''
        const notAnInput = `${a} is not an input of an effective merge into ${c}`
        const cases: readonly [string, Edit, string][] = [
          [
            'the merge record removed',
            (r) =>
              r.type === 'merge'
                ? []
                : r.type === 'end'
                  ? [{ ...r, counts: { ...r.counts, merge: 0 } }]
                  : [r],
            notAnInput,
          ],
          [
            "A's merged_into cleared",
            (r) =>
              r.type === 'memory' && r.row.memoryId === a
                ? [{ ...r, row: { ...r.row, mergedInto: null } }]
                : [r],
            `${a} is merged into nothing`,
          ],
          [
            'A dropped from the inputs of its merge',
            (r) =>
              r.type === 'merge'
                ? [
                    {
                      ...r,
                      row: { ...r.row, inputs: r.row.inputs.filter((i) => i.artifactId !== a) },
                    },
                  ]
                : [r],
            notAnInput,
          ],
          [
            'C merged back into A by a second effective merge',
            (r) => {
              if (r.type === 'memory' && r.row.memoryId === c)
                return [
                  { ...r, row: { ...r.row, state: 'merged', stateVersion: 2, mergedInto: a } },
                ]
              if (r.type === 'end') return [{ ...r, counts: { ...r.counts, merge: 2 } }]
              if (r.type !== 'merge') return [r]
              const inputs = [{ artifactId: c, revision: 1 }]
              return [
                r,
                { ...r, row: { ...r.row, mergeId: otherId(r.row.mergeId), resultId: a, inputs } },
              ]
            },
            `merge cycle at ${mergeId}`,
          ],
        ]
        for (const [what, edit, message] of cases) {
          const backend = await t.open()
          await backend.importRows(exported.flatMap(edit))
          const cmd = { scopeId: s.scopeId, memoryId: a }
          const preview = await expectCode(backend.restorePreview(cmd), 'internal_error')
          expect(preview.message, what).toBe(`stored merge relations are inconsistent: ${message}`)
          const restore = await expectCode(backend.restore(cmd), 'internal_error')
          expect(restore.message, what).toBe(preview.message)
          expect((await backend.verify()).ok, what).toBe(false)
        }
      },
    )
  })
}
