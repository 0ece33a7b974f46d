/**
 * A JSON answer's bytes, made in slices: an answer of a megabyte (a source read, a remember of
 * 100 × 8 KB) is milliseconds of `JSON.stringify`, then as many again of UTF-8 encoding and
 * length counting when a string is handed to the socket. Here the text is encoded a piece at a
 * time, straight into one buffer of the answer's size, with a {@link Pause} between pieces; the
 * socket gets the finished buffer. The bytes are exactly those Fastify would send for the object
 * (`JSON.stringify`, UTF-8).
 */
import type { Pause } from '../core/event-loop-slices.js'
import { stringifyPieces } from '../core/json-text.js'

/** Characters encoded between two pauses (≈ a few hundred µs of work). */
const PIECE_CHARS = 64 * 1024

/**
 * `JSON.stringify(value)` as UTF-8, encoded in pieces with `pause()` awaited between them. Members
 * kept as their stored JSON text (a source's content, `withJsonText`) are copied in as stored.
 */
export async function jsonAnswerBytes(value: unknown, pause: Pause): Promise<Buffer> {
  await pause()
  const texts = stringifyPieces(value)
  const only = texts.length === 1 ? texts[0]! : undefined
  if (typeof only === 'string' && only.length <= PIECE_CHARS) return Buffer.from(only)
  await pause()
  let size = 0
  for (const text of texts) size += typeof text === 'string' ? Buffer.byteLength(text) : text.length
  const bytes = Buffer.allocUnsafe(size)
  let offset = 0
  for (const text of texts) {
    if (typeof text !== 'string') {
      // Stored bytes, copied as they are (a megabyte is a fraction of a millisecond).
      await pause()
      bytes.set(text, offset)
      offset += text.length
      continue
    }
    for (let start = 0; start < text.length;) {
      await pause()
      let end = Math.min(start + PIECE_CHARS, text.length)
      // A piece never ends between the two halves of a surrogate pair (each would become U+FFFD).
      const last = text.charCodeAt(end - 1)
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1
      offset += bytes.write(text.slice(start, end), offset)
      start = end
    }
  }
  return bytes
}
