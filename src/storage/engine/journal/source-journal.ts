import { canonicalJsonSliced, type JsonValue } from '../../../core/canonical.js'
import { checkArtifactRef, checkLimit } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import { type Pause, timeSlicer } from '../../../core/event-loop-slices.js'
import { isIsolating, windowEnd } from '../../../core/flush-policy.js'
import { checkRecordId, checkScopeId, checkSourceId, newOperationId } from '../../../core/ids.js'
import { isActive } from '../../../core/memory-state.js'
import type { RedactionInfo } from '../../../core/redaction.js'
import {
  normalizeKind,
  normalizeQuery,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
} from '../../../core/text-rules.js'
import type { DialectTx, SourceRow } from '../../spi/dialect-tx.js'
import * as F from '../../spi/flush-types.js'
import type { StaleAnchoredCommand, StaleMemory } from '../../spi/freshness-types.js'
import type { FlushRecordRow } from '../../spi/journal-tx.js'
import { REMEMBER_MAX_ENTRIES } from '../../spi/memory-backend.js'
import type { RankedSearchResult } from '../../spi/search-types.js'
import { decodeSource } from '../ops/capture.js'
import { staleAnchoredInTx } from '../ops/freshness.js'
import { checkMergeInputs } from '../ops/merge.js'
import { recordRedaction } from '../redaction/redaction-reads.js'
import type { CheckedSearch } from '../search/channel.js'
import type { TxRunner } from '../vectors/vector-support.js'
import { viewOf } from '../version-codec.js'
import type { WriteContext } from '../write-context.js'
import { applyFlushInTx, failFlushInTx } from './flush-apply.js'

/** What the base class hands the journal: transactions, clock, write contexts, raw search. */
export interface SourceJournalDeps {
  readonly run: TxRunner
  readonly now: () => Date
  /** A write context with vectors prepared (outside any transaction) for these texts. */
  readonly context: (texts: readonly string[]) => Promise<WriteContext>
  /** The search of the backend in `auto` mode, without the public limit. */
  readonly search: (q: CheckedSearch) => Promise<RankedSearchResult>
}

const MAX_DECISIONS = 1000
/** Payload bytes one window holds at most (at least one source); sources are read in chunks. */
export const WINDOW_PAYLOAD_BYTES_MAX = 8 * 1024 * 1024
const WINDOW_CHUNK = 50

/** Sources `(after, through]` in order, stopping once the payload budget is spent. */
async function readWindow(
  tx: DialectTx,
  scopeId: string,
  after: number,
  through: number,
): Promise<SourceRow[]> {
  const pause = timeSlicer()
  const rows: SourceRow[] = []
  let bytes = 0
  for (let from = after; from < through; from += WINDOW_CHUNK) {
    await pause()
    for (const row of await tx.journal.listSources(
      scopeId,
      from,
      Math.min(from + WINDOW_CHUNK, through),
    )) {
      bytes += Buffer.byteLength(row.payload, 'utf8')
      if (rows.length > 0 && bytes > WINDOW_PAYLOAD_BYTES_MAX) return rows
      rows.push(row)
    }
  }
  return rows
}

function checkCursor(value: F.JournalCursor): F.JournalCursor {
  const n = (v: unknown, field: string): number =>
    checkLimit(v, field, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 })
  return {
    position: n(value?.position, 'expected.position'),
    generation: n(value?.generation, 'expected.generation'),
  }
}

function checkSourceIds(ids: readonly string[], field: string): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > REMEMBER_MAX_ENTRIES)
    throw invalidRequest(field, `must hold 1–${REMEMBER_MAX_ENTRIES} source ids`)
  return [...new Set(ids.map((id, i) => checkSourceId(id, `${field}[${i}]`)))]
}

function checkDecision(decision: F.FlushDecision, i: number): F.FlushDecision {
  const at = `decisions[${i}]`
  if (decision?.op === 'keep' || decision?.op === 'forget')
    return {
      op: decision.op,
      target: checkArtifactRef(decision.target, `${at}.target`),
      sources: checkSourceIds(decision.sources, `${at}.sources`),
      reason: normalizeReason(decision.reason, `${at}.reason`),
    }
  const d = decision as Exclude<F.FlushDecision, { op: 'keep' | 'forget' }>
  const common = {
    kind: normalizeKind(d.kind, `${at}.kind`),
    text: normalizeText(d.text, `${at}.text`),
    sources: checkSourceIds(d.sources, `${at}.sources`),
    observedAt: normalizeTimestamp(d.observedAt, `${at}.observed_at`),
    reason: normalizeReason(d.reason, `${at}.reason`),
  }
  if (d.op === 'create') return { op: 'create', ...common }
  if (d.op === 'update')
    return { op: 'update', target: checkArtifactRef(d.target, `${at}.target`), ...common }
  if (d.op === 'merge') {
    if (!Array.isArray(d.targets)) throw invalidRequest(`${at}.targets`, 'must be an array')
    const targets = d.targets.map((r, j) => checkArtifactRef(r, `${at}.targets[${j}]`))
    checkMergeInputs(targets)
    return { op: 'merge', targets, ...common }
  }
  throw invalidRequest(`${at}.op`, 'must be create, update, merge, keep or forget')
}

async function checkDraft(draft: F.FlushRecordDraft, pause: Pause): Promise<F.FlushRecordDraft> {
  if (draft?.mode !== 'structured' && draft?.mode !== 'model')
    throw invalidRequest('record.mode', 'must be structured or model')
  await canonicalJsonSliced(draft.details, 'record.details', pause)
  return draft
}

/** Each decision checked, in order, with a pause before each. */
async function checkDecisions(
  decisions: readonly F.FlushDecision[],
  pause: Pause,
): Promise<F.FlushDecision[]> {
  const out: F.FlushDecision[] = []
  for (const [i, d] of decisions.entries()) {
    await pause()
    out.push(checkDecision(d, i))
  }
  return out
}

function toRecord(row: FlushRecordRow, redaction: RedactionInfo | null): F.FlushRecord {
  return Object.freeze({
    ...(redaction === null ? {} : { redaction }),
    recordId: row.recordId,
    scopeId: row.scopeId,
    fromPosition: row.fromPosition,
    toPosition: row.toPosition,
    mode: row.mode,
    model: row.model,
    promptVersion: row.promptVersion,
    operationId: row.operationId,
    createdAt: row.createdAt,
    details: JSON.parse(row.detailsJson) as Record<string, JsonValue>,
  })
}

/**
 * The source journal of a database backend (docs/sources-and-flush.md; SPI {@link F.SourceJournalPort}): it
 * validates every command and runs the flush transactions; rules stay here and in `core/`, the
 * adapter supplies only the `DialectTx.journal` verbs.
 */
export class SourceJournal implements F.SourceJournalPort {
  readonly #deps: SourceJournalDeps

  constructor(deps: SourceJournalDeps) {
    this.#deps = deps
  }

  async window(cmd: {
    readonly scopeId: string
    readonly limit?: number | undefined
    readonly until?: number | undefined
  }): Promise<F.SourceWindow> {
    const scopeId = checkScopeId(cmd.scopeId)
    const limit = checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: F.FLUSH_LIMIT_MAX,
      fallback: F.FLUSH_LIMIT_DEFAULT,
    })
    const until =
      cmd.until === undefined
        ? Number.MAX_SAFE_INTEGER
        : checkLimit(cmd.until, 'until', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 1 })
    return this.#deps.run.read(async (tx) => {
      const row = await tx.journal.getCursor(scopeId)
      const cursor = { position: row?.position ?? 0, generation: row?.generation ?? 0 }
      const highWatermark = await tx.journal.highWatermark(scopeId)
      const isolateThrough = row?.isolateThrough ?? 0
      const isolating = isIsolating(cursor.position, isolateThrough)
      const bounds = { cursor: cursor.position, highWatermark, limit, until, isolateThrough }
      const through = windowEnd(bounds)
      const rows = await readWindow(tx, scopeId, cursor.position, through)
      const failed =
        rows.length > 0 ? await tx.journal.getFailure(scopeId, cursor.position + 1) : undefined
      return Object.freeze({
        scopeId,
        cursor,
        highWatermark,
        sources: Object.freeze(rows.map(decodeSource)),
        isolating,
        failure:
          failed === undefined
            ? null
            : {
                attempts: failed.attempts,
                error: { code: failed.errorCode, message: failed.errorMessage },
              },
      })
    })
  }

  async apply(cmd: F.ApplyFlushCommand, hooks?: F.ApplyHooks): Promise<F.ApplyFlushResult> {
    const expected = checkCursor(cmd.expected)
    const through = checkLimit(cmd.through, 'through', {
      min: expected.position + 1,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
    })
    if (!Array.isArray(cmd.decisions) || cmd.decisions.length > MAX_DECISIONS)
      throw invalidRequest('decisions', `must hold at most ${MAX_DECISIONS} decisions`)
    const pause = timeSlicer()
    const checked: F.ApplyFlushCommand = {
      scopeId: checkScopeId(cmd.scopeId),
      expected,
      through,
      decisions: await checkDecisions(cmd.decisions, pause),
      record: await checkDraft(cmd.record, pause),
    }
    const ctx = await this.#deps.context(
      checked.decisions.flatMap((d) => ('text' in d ? [d.text] : [])),
    )
    return this.#deps.run.write((tx) => applyFlushInTx(tx, ctx, checked, hooks))
  }

  async fail(cmd: F.FlushFailureCommand): Promise<F.FlushFailureResult> {
    const expected = checkCursor(cmd.expected)
    const checked: F.FlushFailureCommand = {
      scopeId: checkScopeId(cmd.scopeId),
      expected,
      through: checkLimit(cmd.through, 'through', {
        min: expected.position + 1,
        max: Number.MAX_SAFE_INTEGER,
        fallback: 0,
      }),
      error: { code: String(cmd.error.code), message: String(cmd.error.message) },
      maxAttempts: checkLimit(cmd.maxAttempts, 'max_attempts', { min: 1, max: 100, fallback: 3 }),
      record: await checkDraft(cmd.record, timeSlicer()),
    }
    const now = this.#deps.now()
    const ctx = { operationId: newOperationId(now.getTime()), at: now.toISOString() }
    return this.#deps.run.write((tx) => failFlushInTx(tx, ctx, checked))
  }

  async records(cmd: F.FlushRecordsCommand): Promise<F.FlushRecordsResult> {
    const scopeId = checkScopeId(cmd.scopeId)
    const recordId = cmd.recordId === undefined ? undefined : checkRecordId(cmd.recordId)
    const after = checkLimit(cmd.after, 'after', {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
    })
    const limit = checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: F.FLUSH_RECORDS_LIMIT_MAX,
      fallback: 20,
    })
    const rows = await this.#deps.run.read(async (tx) => {
      const found = await tx.journal.listRecords({ scopeId, recordId, after, limit: limit + 1 })
      const out: F.FlushRecord[] = []
      for (const row of found) out.push(toRecord(row, await recordRedaction(tx, row)))
      return out
    })
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    return {
      records: page,
      nextAfter: rows.length > limit && last !== undefined ? last.toPosition : null,
    }
  }

  async pendingScopes(
    cmd: { readonly after?: string; readonly limit?: number } = {},
  ): Promise<string[]> {
    const limit = checkLimit(cmd.limit, 'limit', { min: 1, max: 10_000, fallback: 1000 })
    return this.#deps.run.read((tx) => tx.journal.pendingScopes(cmd.after ?? '', limit))
  }

  async related(cmd: F.RelatedCommand): Promise<RankedSearchResult> {
    return this.#deps.search({
      scopeId: checkScopeId(cmd.scopeId),
      query: normalizeQuery(cmd.query),
      limit: checkLimit(cmd.limit, 'limit', { min: 1, max: F.RELATED_PAGE_MAX, fallback: 50 }),
      kinds: undefined,
    })
  }

  /** Possibly stale memories anchored to the paths (docs/agents.md "Freshness"). */
  async staleAnchored(cmd: StaleAnchoredCommand): Promise<StaleMemory[]> {
    const scopeId = checkScopeId(cmd.scopeId)
    const paths: unknown = cmd.paths
    if (!Array.isArray(paths) || paths.length > 1000 || paths.some((p) => typeof p !== 'string'))
      throw invalidRequest('paths', 'must hold at most 1000 paths')
    const limit = checkLimit(cmd.limit, 'limit', { min: 1, max: 100, fallback: 20 })
    if (paths.length === 0) return []
    return this.#deps.run.read((tx) => staleAnchoredInTx(tx, { scopeId, paths, limit }))
  }

  async current(scopeId: string, memoryIds: readonly string[]): Promise<F.RelatedMemory[]> {
    const scope = checkScopeId(scopeId)
    return this.#deps.run.read(async (tx: DialectTx) => {
      const loaded = await tx.loadCurrent([...new Set(memoryIds)])
      const out: F.RelatedMemory[] = []
      const all = [...loaded.values()].filter(
        (c) => c.row.scopeId === scope && isActive(c.row.state),
      )
      const ids = all.flatMap((c) =>
        (JSON.parse(c.version.sourcesJson) as { source_id: string }[]).map((s) => s.source_id),
      )
      const positions = await tx.journal.positionsOf(scope, [...new Set(ids)])
      for (const id of new Set(memoryIds)) {
        const c = loaded.get(id)
        if (c === undefined || c.row.scopeId !== scope || !isActive(c.row.state)) continue
        const memory = viewOf(c.version, c.row)
        const known = memory.sources
          .map((s) => positions.get(s.sourceId))
          .filter((p) => p !== undefined)
        out.push({ memory, position: known.length === 0 ? null : Math.max(...known) })
      }
      return out
    })
  }
}
