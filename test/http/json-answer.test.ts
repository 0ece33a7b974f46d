/**
 * Answers encoded in pieces (src/http/json-answer.ts) are byte for byte what `JSON.stringify`
 * gives as UTF-8, whatever falls on a piece boundary, the pause runs between pieces, and a member
 * kept as stored JSON text is a piece of its own, not a copy.
 */
import { describe, expect, it } from 'vitest'

import { withJsonText } from '../../src/core/json-text.js'
import { jsonAnswerBytes } from '../../src/http/json-answer.js'

/** Encodes `value` with a pause that counts its calls. */
async function encode(
  value: unknown,
): Promise<{ bytes: Buffer; pieces: readonly Buffer[]; pauses: number }> {
  let pauses = 0
  const answer = await jsonAnswerBytes(value, async () => {
    pauses += 1
  })
  const bytes = Buffer.concat(answer.pieces)
  expect(answer.length).toBe(bytes.length)
  return { bytes, pieces: answer.pieces, pauses }
}

const PIECE = 64 * 1024

describe('jsonAnswerBytes', () => {
  it('gives the bytes of JSON.stringify for a small answer', async () => {
    const value = { status: 'ok', text: 'café 会议 🎉', n: [1, 2.5, null, true] }
    const { bytes } = await encode(value)
    expect(bytes.equals(Buffer.from(JSON.stringify(value)))).toBe(true)
  })

  it('keeps a surrogate pair whole when it falls on a piece boundary', async () => {
    // `{"text":"` is 9 characters: the pair's halves sit at PIECE - 1 and PIECE.
    for (const shift of [-2, -1, 0, 1]) {
      const value = { text: `${'a'.repeat(PIECE - 10 + shift)}🎉${'é'.repeat(PIECE)}` }
      const { bytes, pauses } = await encode(value)
      expect(bytes.equals(Buffer.from(JSON.stringify(value)))).toBe(true)
      expect(bytes.toString('utf8')).not.toContain('\ufffd')
      expect(pauses).toBeGreaterThan(2)
    }
  })

  it('encodes a large answer of mixed widths and escapes exactly', async () => {
    const value = {
      sources: Array.from({ length: 5 }, (_, i) => ({
        content: `${i} ${'x'.repeat(100_000)} 会议纪要 \ud800 "quoted" \n ${'🎉'.repeat(40_000)}`,
        metadata: { k: 'v' },
      })),
      remaining_source_ids: ['b', 'c'],
    }
    const { bytes, pauses } = await encode(value)
    expect(bytes.equals(Buffer.from(JSON.stringify(value)))).toBe(true)
    expect(pauses).toBeGreaterThan(Math.floor(JSON.stringify(value).length / PIECE))
  })
})

describe('jsonAnswerBytes with members kept as JSON text', () => {
  it('copies the stored text in and gives the bytes of JSON.stringify', async () => {
    const content = `${'a'.repeat(PIECE - 3)}🎉 "q" \\ ${'é'.repeat(PIECE)} 会议`
    const stored = Buffer.from(JSON.stringify(content))
    const kept = withJsonText({ position: 1, content: '', status: 'processed' }, 'content', stored)
    const { bytes, pieces, pauses } = await encode({
      sources: [kept],
      remaining_source_ids: ['x'],
    })
    const plain = {
      sources: [{ position: 1, content, status: 'processed' }],
      remaining_source_ids: ['x'],
    }
    expect(bytes.equals(Buffer.from(JSON.stringify(plain)))).toBe(true)
    expect(pauses).toBeGreaterThan(2)
    // The stored bytes themselves are sent: same memory, nothing copied.
    expect(
      pieces.some((p) => p.buffer === stored.buffer && p.byteOffset === stored.byteOffset),
    ).toBe(true)
  })
})
