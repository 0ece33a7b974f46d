/**
 * The write side of flush (docs/sources-and-flush.md), inside one transaction each: `applyFlushInTx` applies a
 * window's decisions through the same in-transaction operations as explicit writes
 * (`rememberInTx`, `updateInTx`, `mergeInTx`: evidence checks, CAS, change log, projections) and
 * advances the cursor with a compare-and-set on its generation, so a crash or any failure leaves
 * the cursor where it was and the window is replayed. `failFlushInTx` counts a failed attempt
 * and, at the limit, skips the offending source (poison) and moves the cursor past it.
 */
import { monotonicFactory } from 'ulid'

import { canonicalJsonSliced, type JsonValue } from '../../../core/canonical.js'
import { normalizeSourceRefs } from '../../../core/content-hash.js'
import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import { type Pause, timeSlicer } from '../../../core/event-loop-slices.js'
import { afterFailedAttempt } from '../../../core/flush-policy.js'
import type { SourceRef } from '../../../core/memory-model.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import {
  type AppliedDecision,
  type ApplyFlushCommand,
  type ApplyFlushResult,
  type ApplyHooks,
  cursorMoved,
  type FlushFailureCommand,
  type FlushFailureResult,
  type FlushRecordDraft,
  type SkippedSource,
} from '../../spi/flush-types.js'
import type { CursorRow, FailureRow } from '../../spi/journal-tx.js'
import { CHANGES_LIMIT_MAX } from '../../spi/memory-backend.js'
import { toChange } from '../ops/changes.js'
import { mergeInTx } from '../ops/merge.js'
import { rememberInTx } from '../ops/remember.js'
import { updateInTx } from '../ops/update.js'
import type { WriteContext } from '../write-context.js'
import { recheckInTx } from './flush-recheck.js'

const nextUlid = monotonicFactory()

/** Prefix of decision record ids. */
export const FLUSH_RECORD_ID_PREFIX = 'flr_'

/** A new decision record id: `flr_` + ULID. */
export function newFlushRecordId(now: number): string {
  return FLUSH_RECORD_ID_PREFIX + nextUlid(now)
}

async function requireCursor(
  tx: DialectTx,
  scopeId: string,
  expected: { position: number; generation: number },
): Promise<CursorRow | undefined> {
  const row = await tx.journal.getCursor(scopeId)
  if ((row?.generation ?? 0) !== expected.generation || (row?.position ?? 0) !== expected.position)
    throw cursorMoved(scopeId)
  return row
}

const refsOf = (ids: readonly string[]): SourceRef[] =>
  normalizeSourceRefs(ids.map((sourceId) => ({ name: 'content' as const, sourceId })))

function recordJson(
  draft: FlushRecordDraft,
  extra: Record<string, JsonValue>,
  pause: Pause,
): Promise<string> {
  return canonicalJsonSliced({ ...draft.details, ...extra }, 'record', pause)
}

/**
 * Applies a window's decisions and advances the cursor to `cmd.through`, atomically.
 * @throws PowerContextError `revision_conflict` (cursor or target moved), `invalid_inference_output`
 *   (evidence outside the window), and any error of the write operations; nothing is written then.
 */
export async function applyFlushInTx(
  tx: DialectTx,
  ctx: WriteContext,
  cmd: ApplyFlushCommand,
  hooks: ApplyHooks = {},
): Promise<ApplyFlushResult> {
  const { scopeId } = cmd
  const pause = timeSlicer()
  const cursor = await requireCursor(tx, scopeId, cmd.expected)
  if (cmd.through > (await tx.journal.highWatermark(scopeId)))
    throw invalidRequest('through', 'beyond the high watermark')
  const window = await tx.journal.listSources(scopeId, cmd.expected.position, cmd.through)
  const inWindow = new Set(window.map((s) => s.sourceId))
  const seqBefore = await tx.headSeq(scopeId)
  const applied: AppliedDecision[] = []
  for (const [i, d] of cmd.decisions.entries()) {
    await pause()
    const outside = d.sources.filter((id) => !inWindow.has(id))
    if (outside.length > 0 || d.sources.length === 0) {
      throw new PowerContextError(
        'invalid_inference_output',
        `decision ${i} must cite sources of the window only (outside: ${outside.join(', ') || 'none given'})`,
      )
    }
    const sources = refsOf(d.sources)
    if (d.op === 'create') {
      const content = {
        kind: d.kind,
        text: d.text,
        sources,
        artifacts: [],
        observedAt: d.observedAt,
      }
      const r = await rememberInTx(tx, ctx, scopeId, [{ content, reason: d.reason }])
      const first = r.results[0] as (typeof r.results)[number]
      applied.push({ op: d.op, status: first.status, memory: first.memory })
    } else if (d.op === 'update') {
      const r = await updateInTx(tx, ctx, {
        scopeId,
        memoryRef: d.target,
        text: d.text,
        kind: d.kind,
        sources,
        observedAt: d.observedAt,
        reason: d.reason,
      })
      applied.push({ op: d.op, status: r.status, memory: r.memory })
    } else if (d.op === 'merge') {
      const r = await mergeInTx(tx, ctx, {
        scopeId,
        inputs: d.targets,
        kind: d.kind,
        text: d.text,
        reason: d.reason,
        sources,
        observedAt: d.observedAt,
      })
      applied.push({ op: d.op, status: r.status, memory: r.memory })
    } else applied.push(await recheckInTx(tx, ctx, scopeId, d))
  }
  await hooks.afterDecisions?.()
  const advanced = await tx.journal.casCursor(
    {
      scopeId,
      position: cmd.through,
      isolateThrough: cursor?.isolateThrough ?? 0,
      updatedAt: ctx.at,
    },
    cmd.expected.generation,
  )
  if (!advanced) throw cursorMoved(scopeId)
  await tx.journal.clearFailures(scopeId, cmd.through)
  await pause()
  const changes = (await tx.listChanges(scopeId, seqBefore, CHANGES_LIMIT_MAX)).map(toChange)
  const recordId = newFlushRecordId(Date.parse(ctx.at))
  const detailsJson = await recordJson(
    cmd.record,
    {
      applied: applied.map((a) => ({
        op: a.op,
        status: a.status,
        memory_id: a.memory.memoryRef.artifactId,
        revision: a.memory.memoryRef.revision,
      })),
      change_seqs: changes.map((c) => c.seq),
      skipped: [],
    },
    pause,
  )
  // Writing a record of several MB is one statement: the slices before and after it stay short.
  await pause()
  await tx.journal.insertRecord({
    recordId,
    scopeId,
    fromPosition: cmd.expected.position,
    toPosition: cmd.through,
    mode: cmd.record.mode,
    model: cmd.record.model,
    promptVersion: cmd.record.promptVersion,
    operationId: ctx.operationId,
    createdAt: ctx.at,
    detailsJson,
  })
  await pause()
  return { recordId, operationId: ctx.operationId, cursor: cmd.through, applied, changes }
}

/** The caller view of a skipped failure row. */
export function toSkipped(row: FailureRow): SkippedSource {
  return Object.freeze({
    seq: row.skipSeq ?? 0,
    source: Object.freeze({ name: 'content' as const, sourceId: row.sourceId }),
    position: row.position,
    attempts: row.attempts,
    error: Object.freeze({ code: row.errorCode, message: row.errorMessage }),
    at: row.lastFailedAt,
  })
}

/**
 * Records a failed attempt of the window starting after `cmd.expected`: the failure counts
 * against its first source, and the rest of the failed window is then retried one source at a
 * time (isolation), so the count ends up on the source that fails alone. When that source has
 * failed `maxAttempts` times alone, it is skipped: marked with its error, given a change sequence
 * number (reported by `changes`), and the cursor moves past it with a decision record.
 * Nothing is written when the cursor moved meanwhile.
 */
export async function failFlushInTx(
  tx: DialectTx,
  ctx: { operationId: string; at: string },
  cmd: FlushFailureCommand,
): Promise<FlushFailureResult> {
  const { scopeId } = cmd
  let cursor: CursorRow | undefined
  try {
    cursor = await requireCursor(tx, scopeId, cmd.expected)
  } catch {
    return { recorded: false, attempts: 0, skipped: null, cursor: -1, recordId: null }
  }
  const position = cmd.expected.position + 1
  const [source] = await tx.journal.listSources(scopeId, cmd.expected.position, position)
  if (source === undefined) throw new Error(`scope ${scopeId} has no source at ${position}`)
  const before = await tx.journal.getFailure(scopeId, position)
  const next = afterFailedAttempt({
    expected: cmd.expected.position,
    through: cmd.through,
    attemptsBefore: before?.attempts ?? 0,
    maxAttempts: cmd.maxAttempts,
    isolateThrough: cursor?.isolateThrough ?? 0,
  })
  const { attempts, skip } = next
  const row: FailureRow = {
    scopeId,
    position,
    sourceId: source.sourceId,
    attempts,
    errorCode: cmd.error.code,
    errorMessage: cmd.error.message.slice(0, 2000),
    state: skip ? 'skipped' : 'failing',
    skipSeq: skip ? await tx.journal.allocateSeq(scopeId) : null,
    firstFailedAt: before?.firstFailedAt ?? ctx.at,
    lastFailedAt: ctx.at,
  }
  await tx.journal.putFailure(row)
  const moved = await tx.journal.casCursor(
    {
      scopeId,
      position: next.cursor,
      isolateThrough: next.isolateThrough,
      updatedAt: ctx.at,
    },
    cmd.expected.generation,
  )
  if (!moved) throw cursorMoved(scopeId)
  if (!skip) {
    return {
      recorded: true,
      attempts,
      skipped: null,
      cursor: cmd.expected.position,
      recordId: null,
    }
  }
  const skipped = toSkipped(row)
  const recordId = newFlushRecordId(Date.parse(ctx.at))
  await tx.journal.insertRecord({
    recordId,
    scopeId,
    fromPosition: cmd.expected.position,
    toPosition: position,
    mode: cmd.record.mode,
    model: cmd.record.model,
    promptVersion: cmd.record.promptVersion,
    operationId: ctx.operationId,
    createdAt: ctx.at,
    detailsJson: await recordJson(
      cmd.record,
      {
        applied: [],
        change_seqs: [skipped.seq],
        skipped: [
          {
            source_id: skipped.source.sourceId,
            position,
            attempts,
            error: { code: skipped.error.code, message: skipped.error.message },
          },
        ],
      },
      timeSlicer(),
    ),
  })
  return { recorded: true, attempts, skipped, cursor: position, recordId }
}
