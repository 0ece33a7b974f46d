import type { components } from '../contract/powercontext-types.js'
import type { SkippedSource } from '../storage/spi/flush-types.js'

/** A skipped (poison) source on the wire (flush and changes responses). */
export const toWireSkipped = (s: SkippedSource): components['schemas']['SkippedSource'] => ({
  seq: s.seq,
  source: { name: s.source.name, source_id: s.source.sourceId },
  position: s.position,
  attempts: s.attempts,
  error: { code: s.error.code, message: s.error.message },
  at: s.at,
})
