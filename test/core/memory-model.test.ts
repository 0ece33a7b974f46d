import { describe, expect, it } from 'vitest'

import { type MemoryVersion, toMemory } from '../../src/core/memory-model.js'

const version: MemoryVersion = {
  memoryId: 'mem_01J00000000000000000000001',
  scopeId: 'project:demo',
  version: 3,
  previousVersion: 2,
  kind: 'fact',
  text: 'Uses pnpm.',
  sources: [{ name: 'content', sourceId: 'src_0123456789abcdef0123456789abcdef' }],
  artifacts: [{ artifactId: 'mem_01J00000000000000000000002', revision: 1 }],
  observedAt: '2025-01-01T00:00:00.000Z',
  contentHash: 'a'.repeat(64),
  createdAt: '2025-01-02T00:00:00.000Z',
  operation: 'update',
  operationId: 'op-1',
  reason: 'retro',
}

describe('toMemory', () => {
  it("is the version's content under the memory's current state, citing that version", () => {
    const memory = toMemory(version, 'merged', 'mem_01J00000000000000000000009')
    // Exactly these fields: the version's own bookkeeping (previous version, operation) stays out.
    expect(memory).toStrictEqual({
      memoryRef: { artifactId: version.memoryId, revision: 3 },
      scopeId: 'project:demo',
      state: 'merged',
      kind: 'fact',
      text: 'Uses pnpm.',
      sources: version.sources,
      artifacts: version.artifacts,
      observedAt: '2025-01-01T00:00:00.000Z',
      contentHash: 'a'.repeat(64),
      createdAt: '2025-01-02T00:00:00.000Z',
      mergedInto: 'mem_01J00000000000000000000009',
      reason: 'retro',
    })
    expect(Object.isFrozen(memory)).toBe(true)
    expect(Object.isFrozen(memory.memoryRef)).toBe(true)
  })
})
