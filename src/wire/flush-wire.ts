/**
 * Domain ↔ wire conversion of flush: the request bodies of `POST /v1/memory/flush` and
 * `POST /v1/memory/flush/records`, their responses, and the `extraction` part of capabilities.
 */
import type { components } from '../contract/powercontext-types.js'
import type { JsonValue } from '../core/canonical.js'
import type { ExtractionCapabilities } from '../runtime/extraction.js'
import type { SourceOutcome } from '../runtime/flush-planner.js'
import type { FlushCommand, FlushResult } from '../runtime/source-flusher.js'
import type {
  FlushRecord,
  FlushRecordsCommand,
  FlushRecordsResult,
} from '../storage/spi/flush-types.js'
import { fromWireChange, toWireChange } from './memory-wire.js'
import { fromWireRedaction, toWireRedaction } from './redaction-wire.js'
import { fromWireSkipped, toWireSkipped } from './skipped-wire.js'

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

/** Inverse of {@link toWireFlush} (CLI `--server-url`). */
export const fromWireFlush = (r: Wire['FlushResponse']): FlushResult =>
  Object.freeze({
    status: r.status,
    previousCursor: r.previous_cursor,
    cursor: r.cursor,
    highWatermark: r.high_watermark,
    processedSourceCount: r.processed_source_count,
    changes: r.changes.map(fromWireChange),
    skippedSources: r.skipped_sources.map(fromWireSkipped),
    sources: r.sources.map((o) => ({
      sourceId: o.source.source_id,
      position: o.position,
      mediaType: o.media_type,
      outcome: o.outcome,
      candidates: o.candidates,
      refused: o.refused.map((x) => ({
        sourceId: o.source.source_id,
        entry: x.entry,
        reason: x.reason,
      })),
      note: o.note,
    })),
    recordId: r.record_id,
    mode: r.extraction_mode,
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

/** Inverse of {@link toWireFlushRecords}. */
export const fromWireFlushRecords = (r: Wire['FlushRecordsResponse']): FlushRecordsResult =>
  Object.freeze({
    records: r.records.map((x) => ({
      recordId: x.record_id,
      scopeId: x.scope_id,
      fromPosition: x.from_position,
      toPosition: x.to_position,
      mode: x.mode,
      model: x.model,
      promptVersion: x.prompt_version,
      operationId: x.operation_id,
      createdAt: x.created_at,
      details: x.details as Record<string, JsonValue>,
      ...(x.redaction === undefined || x.redaction === null
        ? {}
        : { redaction: fromWireRedaction(x.redaction) }),
    })),
    nextAfter: r.next_after,
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
