import { checkLimit } from '../../../core/command-rules.js'
import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import { timeSlicer } from '../../../core/event-loop-slices.js'
import { checkScopeId, checkSourceId } from '../../../core/ids.js'
import { copyMember } from '../../../core/json-text.js'
import { MEMORY_STATES, type MemoryState } from '../../../core/memory-model.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { FailureRow } from '../../spi/journal-tx.js'
import type { LegacyPayloadRow } from '../../spi/legacy-tx.js'
import type * as L from '../../spi/listing-types.js'
import {
  SCOPES_LIMIT_DEFAULT,
  SCOPES_LIMIT_MAX,
  SOURCES_LIMIT_DEFAULT,
  SOURCES_LIMIT_MAX,
  SOURCES_RESPONSE_BYTES_MAX,
} from '../../spi/listing-types.js'
import type { SourceBytesRow } from '../../spi/source-row.js'
import { sourceRedaction } from '../redaction/redaction-reads.js'
import { decodeSourceBytes } from './capture.js'

/** Validates a scopes listing: `after` a scope id, `limit` 1–500 (default 100). */
export function checkListScopes(cmd: L.ListScopesCommand): { after: string; limit: number } {
  return {
    after: cmd.after === undefined ? '' : checkScopeId(cmd.after, 'after'),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: SCOPES_LIMIT_MAX,
      fallback: SCOPES_LIMIT_DEFAULT,
    }),
  }
}

/** Validates a source read: 1–100 source ids of the scope (a repeated id is read once). */
export function checkGetSources(cmd: L.GetSourcesCommand) {
  const ids = cmd.sourceIds
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > SOURCES_LIMIT_MAX)
    throw invalidRequest('source_ids', `must hold 1–${SOURCES_LIMIT_MAX} source ids`)
  return {
    scopeId: checkScopeId(cmd.scopeId),
    sourceIds: [...new Set(ids.map((id, i) => checkSourceId(id, `source_ids[${i}]`)))],
  }
}

/** Validates a journal page: `after` a position ≥ 0 (default 0), `limit` 1–100 (default 20). */
export function checkListSources(cmd: L.ListSourcesCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    after: checkLimit(cmd.after, 'after', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: SOURCES_LIMIT_MAX,
      fallback: SOURCES_LIMIT_DEFAULT,
    }),
  }
}

/** scopes listing: one keyset page of scopes, counts read in the same snapshot. */
export async function listScopesInTx(
  tx: DialectTx,
  q: { after: string; limit: number },
): Promise<L.ListScopesResult> {
  const rows = await tx.listScopes(q.after, q.limit + 1)
  const page = rows.slice(0, q.limit)
  const first = page[0]
  const last = page.at(-1)
  const counts = new Map<string, Record<MemoryState, number>>()
  if (first !== undefined && last !== undefined) {
    for (const c of await tx.countStates(first.scopeId, last.scopeId)) {
      let perState = counts.get(c.scopeId)
      if (perState === undefined) counts.set(c.scopeId, (perState = zeroCounts()))
      perState[c.state] = c.n
    }
  }
  const scopes = page.map((row): L.ScopeSummary => {
    const perState = counts.get(row.scopeId) ?? zeroCounts()
    return Object.freeze({
      scopeId: row.scopeId,
      counts: Object.freeze(perState),
      memoryCount: MEMORY_STATES.reduce((n, s) => n + perState[s], 0),
      headSeq: row.headSeq,
      lastChangeAt: row.lastChangeAt,
      highWatermark: row.highWatermark,
      cursor: row.cursorPosition,
    })
  })
  return { scopes, nextAfter: rows.length > q.limit ? (last?.scopeId ?? null) : null }
}

const zeroCounts = (): Record<MemoryState, number> => ({
  active: 0,
  forgotten: 0,
  merged: 0,
  retired: 0,
})

/** A source row as a reader sees it: decoded payload plus its flush status against the cursor. */
async function viewOfSource(
  tx: DialectTx,
  row: SourceBytesRow,
  legacy: LegacyPayloadRow | undefined,
  cursor: number,
  failure: FailureRow | undefined,
): Promise<L.SourceView> {
  const redaction = await sourceRedaction(tx, row)
  const decoded = decodeSourceBytes(row)
  const status: L.SourceView['status'] =
    failure?.state === 'skipped' ? 'skipped' : row.position <= cursor ? 'processed' : 'pending'
  // Member by member, not spread: a large content stays unparsed (see `decodeSourceBytes`).
  const view = {
    source: Object.freeze({ name: 'content' as const, sourceId: decoded.sourceId }),
    position: decoded.position,
    content: '',
    mediaType: decoded.mediaType,
    metadata: decoded.metadata,
    occurredAt: decoded.occurredAt,
    capturedAt: decoded.capturedAt,
    status,
    failure:
      failure === undefined
        ? null
        : {
            attempts: failure.attempts,
            error: { code: failure.errorCode, message: failure.errorMessage },
          },
    legacyPayload: legacy === undefined ? null : Buffer.from(legacy.payload).toString('utf8'),
    ...(redaction === null ? {} : { redaction }),
  }
  return Object.freeze(copyMember(decoded, view, 'content'))
}

/**
 * Adds the views of the sources at `count` positions of the scope while they fit the answer's byte
 * budget (the first always fits). Each source is sized from its stored length first
 * (`payloadBytes`), so one that cannot fit is never read; rows are read one at a time, their
 * payload as bytes (`sourceAt`), with a yield to the event loop between rows (and between a row's
 * read and its decoding) once a slice's budget is spent. Returns how many of `count` were taken.
 */
async function takeWithinBudget(
  tx: DialectTx,
  scopeId: string,
  count: number,
  positionOf: (i: number) => number,
  view: (row: SourceBytesRow, legacy: LegacyPayloadRow | undefined) => Promise<L.SourceView>,
  into: L.SourceView[],
): Promise<number> {
  const pause = timeSlicer()
  let bytes = 0
  for (let i = 0; i < count; i += 1) {
    const position = positionOf(i)
    if (
      i > 0 &&
      bytes + ((await tx.journal.payloadBytes(scopeId, position)) ?? 0) > SOURCES_RESPONSE_BYTES_MAX
    )
      return i
    await pause()
    const row = await tx.journal.sourceAt(scopeId, position)
    if (row === undefined) throw new Error('a journal position vanished inside a read transaction')
    const legacy = await tx.legacy.getPayload(row.scopeId, row.sourceType, row.sourceId)
    const size = row.payload.byteLength + (legacy === undefined ? 0 : legacy.payload.byteLength)
    if (i > 0 && bytes + size > SOURCES_RESPONSE_BYTES_MAX) return i
    bytes += size
    // Reading a row of a megabyte and parsing its payload are each milliseconds: a pause between.
    await pause()
    into.push(await view(row, legacy))
  }
  return count
}

/**
 * Sources by id, in the order asked, up to the answer's byte budget (`remainingSourceIds`).
 * @throws PowerContextError `source_not_found` (`details.source_ids`) when one is not in the scope.
 */
export async function getSourcesInTx(
  tx: DialectTx,
  q: { scopeId: string; sourceIds: readonly string[] },
): Promise<L.GetSourcesResult> {
  const positions = await tx.journal.positionsOf(q.scopeId, q.sourceIds)
  const missing = q.sourceIds.filter((id) => !positions.has(id))
  if (missing.length > 0)
    throw new PowerContextError(
      'source_not_found',
      `no source ${missing.join(', ')} in scope ${q.scopeId}`,
      { source_ids: missing },
    )
  const cursor = (await tx.journal.getCursor(q.scopeId))?.position ?? 0
  const sources: L.SourceView[] = []
  const taken = await takeWithinBudget(
    tx,
    q.scopeId,
    q.sourceIds.length,
    (i) => positions.get(q.sourceIds[i]!)!,
    async (row, legacy) =>
      viewOfSource(tx, row, legacy, cursor, await tx.journal.getFailure(q.scopeId, row.position)),
    sources,
  )
  return { sources, remainingSourceIds: q.sourceIds.slice(taken) }
}

/**
 * The journal after `after`: cursor, high watermark and a page of sources (positions are
 * contiguous), ending early at the answer's byte budget (`nextAfter` continues).
 */
export async function listSourcesInTx(
  tx: DialectTx,
  q: { scopeId: string; after: number; limit: number },
): Promise<L.ListSourcesResult> {
  const cursor = (await tx.journal.getCursor(q.scopeId))?.position ?? 0
  const highWatermark = await tx.journal.highWatermark(q.scopeId)
  const through = Math.min(highWatermark, q.after + q.limit)
  if (through <= q.after) return { sources: [], cursor, highWatermark, nextAfter: null }
  const failures = new Map(
    (await tx.journal.failuresBetween(q.scopeId, q.after, through)).map((f) => [f.position, f]),
  )
  const sources: L.SourceView[] = []
  const taken = await takeWithinBudget(
    tx,
    q.scopeId,
    through - q.after,
    (i) => q.after + i + 1,
    async (row, legacy) => viewOfSource(tx, row, legacy, cursor, failures.get(row.position)),
    sources,
  )
  const last = q.after + taken
  return { sources, cursor, highWatermark, nextAfter: last < highWatermark ? last : null }
}
