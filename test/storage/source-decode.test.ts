/**
 * A stored source's payload decoded for reads (`decodeSourceBytes`): a large content is kept as
 * its stored JSON text until read, and every field is what parsing the whole payload gives.
 */
import { describe, expect, it } from 'vitest'

import { canonicalJson } from '../../src/core/canonical.js'
import { jsonTextOf } from '../../src/core/json-text.js'
import { decodeSourceBytes } from '../../src/storage/engine/ops/capture.js'
import type { SourceBytesRow } from '../../src/storage/spi/source-row.js'

const row = (payload: string): SourceBytesRow => ({
  scopeId: 's',
  sourceType: 'content',
  sourceId: 'src-1',
  position: 3,
  payloadHash: 'h',
  payload: Buffer.from(payload),
  createdAt: '2026-12-06T00:00:00.000Z',
})

const big = `${'line "quoted" \\ back\n'.repeat(5000)}会议 🎉`

describe('decodeSourceBytes', () => {
  it('keeps a large content as stored JSON text, other fields parsed', () => {
    const document = {
      content: big,
      media_type: 'text/markdown',
      metadata: { b: [1, 2], a: '"' },
      occurred_at: '2026-12-01T00:00:00.000Z',
    }
    const decoded = decodeSourceBytes(row(canonicalJson(document)))
    expect(Buffer.from(jsonTextOf(decoded, 'content')!).toString()).toBe(JSON.stringify(big))
    expect(decoded).toEqual({
      sourceId: 'src-1',
      position: 3,
      content: big,
      mediaType: 'text/markdown',
      metadata: { a: '"', b: [1, 2] },
      occurredAt: '2026-12-01T00:00:00.000Z',
      capturedAt: '2026-12-06T00:00:00.000Z',
    })
  })

  it('parses a payload that holds only its content, a small one, or one not in canonical form', () => {
    const only = decodeSourceBytes(row(JSON.stringify({ content: big })))
    expect(only.content).toBe(big)
    expect(only.mediaType).toBeUndefined()
    expect(only.occurredAt).toBeNull()
    const small = decodeSourceBytes(
      row(canonicalJson({ content: 'short', media_type: 't/p', metadata: {} })),
    )
    expect(jsonTextOf(small, 'content')).toBeUndefined()
    expect(small.content).toBe('short')
    const spaced = decodeSourceBytes(
      row(`{"content": ${JSON.stringify(big)}, "media_type": "t/p"}`),
    )
    expect(jsonTextOf(spaced, 'content')).toBeUndefined()
    expect(spaced.content).toBe(big)
    expect(spaced.mediaType).toBe('t/p')
  })
})
