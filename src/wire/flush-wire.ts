/**
 * Domain ↔ wire conversion of flush: the request bodies of `POST /v1/memory/flush` and
 * `POST /v1/memory/flush/records`, their responses, and the `extraction` part of capabilities.
 */
import type { components } from '../contract/powercontext-types.js'
import type { ExtractionCapabilities } from '../runtime/extraction.js'
import type { SourceOutcome } from '../runtime/flush-planner.js'
import type { FlushCommand, FlushResult } from '../runtime/source-flusher.js'
import type {
  FlushRecord,
  FlushRecordsCommand,
  FlushRecordsResult,
} from '../storage/spi/flush-types.js'
import { toWireChange } from './memory-wire.js'
import { toWireRedaction } from './redaction-wire.js'
import { toWireSkipped } from './skipped-wire.js'

type Wire = components['schemas']

/** `POST /v1/memory/flush` body → flush command. */
export const fromWireFlushRequest = (b: Wire['FlushRequest']): FlushCommand => ({
  scopeId: b.scope_id,
  limit: b.limit,
  until: b.until,
})

/** `POST /v1/memory/flush/records` body → records command. */
export const fromWireFlushRecordsRequest = (
  b: Wire['FlushRecordsRequest'],
): FlushRecordsCommand => ({
  scopeId: b.scope_id,
  recordId: b.record_id,
  after: b.after,
  limit: b.limit,
})

const toWireOutcome = (o: SourceOutcome): Wire['SourceOutcome'] => ({
  source: { name: 'content' as const, source_id: o.sourceId },
  position: o.position,
  media_type: o.mediaType,
  outcome: o.outcome,
  candidates: o.candidates,
  refused: o.refused.map((r) => ({ entry: r.entry, reason: r.reason })),
  note: o.note,
})

/** A flush result on the wire (`FlushResponse`). */
export const toWireFlush = (r: FlushResult): Wire['FlushResponse'] => ({
  status: r.status,
  previous_cursor: r.previousCursor,
  cursor: r.cursor,
  // The Python reference's name for `cursor`: its Claude Code and Codex plugins read it.
  current_cursor: r.cursor,
  high_watermark: r.highWatermark,
  processed_source_count: r.processedSourceCount,
  changes: r.changes.map(toWireChange),
  skipped_sources: r.skippedSources.map(toWireSkipped),
  sources: r.sources.map(toWireOutcome),
  record_id: r.recordId,
  extraction_mode: r.mode,
})

const toWireRecord = (r: FlushRecord): Wire['FlushRecord'] => ({
  record_id: r.recordId,
  scope_id: r.scopeId,
  from_position: r.fromPosition,
  to_position: r.toPosition,
  mode: r.mode,
  model: r.model,
  prompt_version: r.promptVersion,
  operation_id: r.operationId,
  created_at: r.createdAt,
  details: r.details,
  ...(r.redaction === undefined ? {} : { redaction: toWireRedaction(r.redaction) }),
})

/** A page of decision records on the wire (`FlushRecordsResponse`). */
export const toWireFlushRecords = (r: FlushRecordsResult): Wire['FlushRecordsResponse'] => ({
  records: r.records.map(toWireRecord),
  next_after: r.nextAfter,
})

/** The `extraction` object of capabilities. */
export const toWireExtraction = (
  e: ExtractionCapabilities,
): Wire['CapabilitiesResponse']['extraction'] => ({
  mode: e.mode,
  model: e.model,
  prompt_version: e.promptVersion,
  structured_media_types: [...e.structuredMediaTypes],
  source_kinds: { ...e.sourceKinds },
  window_limit_default: e.windowLimitDefault,
  window_limit_max: e.windowLimitMax,
  max_attempts: e.maxAttempts,
  schedule_seconds: e.scheduleSeconds,
  provider: e.provider,
  auto_flush: e.autoFlush,
  budget:
    e.budget === null
      ? null
      : {
          calls_per_day: e.budget.callsPerDay,
          tokens_per_day: e.budget.tokensPerDay,
          day: e.budget.day,
          calls_today: e.budget.callsToday,
          tokens_today: e.budget.tokensToday,
          paused_until: e.budget.pausedUntil,
          paused_reason: e.budget.pausedReason,
        },
})
