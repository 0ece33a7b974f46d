/**
 * A JSON answer's bytes, made in slices: an answer of a megabyte (a source read, a remember of
 * 100 × 8 KB) is milliseconds of `JSON.stringify`, then as many again of UTF-8 encoding and
 * length counting when a string is handed to the socket. Here the text is encoded a piece at a
 * time, with a {@link Pause} between pieces, and members kept as their stored JSON text (a source's
 * content) are not copied at all: the socket is handed the pieces in order. The bytes are exactly
 * those Fastify would send for the object (`JSON.stringify`, UTF-8).
 */
import type { Pause } from '../core/event-loop-slices.js'
import { stringifyPieces } from '../core/json-text.js'

/** Characters encoded between two pauses (≈ a few hundred µs of work). */
const PIECE_CHARS = 64 * 1024

/** An answer's bytes as consecutive pieces, and their total length. */
export interface AnswerBytes {
  readonly length: number
  readonly pieces: readonly Buffer[]
}

/**
 * `JSON.stringify(value)` as UTF-8 pieces, encoded with `pause()` awaited between them. Members
 * kept as their stored JSON text (`withJsonText`) are pieces of their own, as stored (never
 * copied: a megabyte of content costs no allocation here).
 */
export async function jsonAnswerBytes(value: unknown, pause: Pause): Promise<AnswerBytes> {
  await pause()
  const pieces: Buffer[] = []
  let length = 0
  for (const text of stringifyPieces(value)) {
    if (typeof text !== 'string') {
      pieces.push(Buffer.from(text.buffer, text.byteOffset, text.byteLength))
      length += text.byteLength
      continue
    }
    for (let start = 0; start < text.length;) {
      await pause()
      let end = Math.min(start + PIECE_CHARS, text.length)
      // A piece never ends between the two halves of a surrogate pair (each would become U+FFFD).
      const last = text.charCodeAt(end - 1)
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1
      const piece = Buffer.from(text.slice(start, end))
      pieces.push(piece)
      length += piece.length
      start = end
    }
  }
  return { length, pieces }
}
