/*
 * Flushes in tests, applied through the backend's journal as the runtime's flusher applies one:
 * the window after the cursor, up to `through`, with the given decisions and decision-record
 * details (the window's source ids added as `details.window`); and the check that a decision
 * record erased by id reads as erased.
 */
import { expect } from 'vitest'

import type { JsonValue } from '../../src/core/canonical.js'
import type { FlushDecision } from '../../src/storage/spi/flush-types.js'
import type { MemoryBackend } from '../../src/storage/spi/memory-backend.js'

/** A `create` decision of a `fact` citing the given sources. */
export const createDecision = (
  text: string,
  ...sources: string[]
): Extract<FlushDecision, { op: 'create' }> => ({
  op: 'create',
  kind: 'fact',
  text,
  sources,
  observedAt: null,
  reason: null,
})

/** Applies the window up to `through`; see the file comment. */
export async function flushWindow(
  backend: MemoryBackend,
  scopeId: string,
  through: number,
  details: Record<string, JsonValue> = {},
  decisions: FlushDecision[] = [],
) {
  const w = await backend.journal.window({ scopeId })
  const window = {
    source_ids: w.sources.filter((s) => s.position <= through).map((s) => s.sourceId),
  }
  return backend.journal.apply({
    scopeId,
    expected: w.cursor,
    through,
    decisions,
    record: {
      mode: 'structured',
      model: null,
      promptVersion: null,
      details: { window, ...details },
    },
  })
}

/** Erases one decision record by id and checks it reads as erased (no `quoted` text), verify clean. */
export async function expectRecordErased(
  backend: MemoryBackend,
  scopeId: string,
  recordId: string,
  quoted: string,
): Promise<void> {
  const r = await backend.redact({ scopeId, target: { recordId } })
  expect(r.items).toEqual([expect.objectContaining({ target: 'record', status: 'redacted' })])
  const [rec] = (await backend.journal.records({ scopeId, recordId })).records
  expect(rec?.redaction).toMatchObject({ reason: 'redacted by an administrator' })
  expect(JSON.stringify(rec)).not.toContain(quoted)
  expect((await backend.verify()).problems).toEqual([])
}
