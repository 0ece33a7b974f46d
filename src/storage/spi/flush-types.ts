/**
 * The flush side of the storage SPI (docs/sources-and-flush.md): the source window after a scope's cursor, the
 * decisions a flush applies together with the cursor advance, failures and skipped (poison)
 * sources, and the persisted decision records. The runtime plans (structured candidates or a
 * model, outside any transaction); the backend validates and applies in one transaction.
 */
import type { JsonValue } from '../../core/canonical.js'
import { PowerContextError } from '../../core/errors.js'
import type { ArtifactRef, Memory, MemoryChange, SourceRef } from '../../core/memory-model.js'
import type { RedactionInfo } from '../../core/redaction.js'
import type { StaleAnchoredCommand, StaleMemory } from './freshness-types.js'
import type { RankedSearchResult } from './search-types.js'

/** The error a flush sees when another flush (or a failure record) moved the cursor first. */
export function cursorMoved(scopeId: string): PowerContextError {
  return new PowerContextError(
    'revision_conflict',
    `the source cursor of scope ${scopeId} moved concurrently`,
    { scope_id: scopeId, conflict: 'source_cursor' },
  )
}

/** True for the conflict {@link cursorMoved} raises: the runtime replans the window. */
export function isCursorConflict(err: unknown): boolean {
  return (
    err instanceof PowerContextError &&
    err.code === 'revision_conflict' &&
    err.details?.['conflict'] === 'source_cursor'
  )
}

/** Default number of sources one flush takes. */
export const FLUSH_LIMIT_DEFAULT = 100
/** Largest `limit` of a flush window. */
export const FLUSH_LIMIT_MAX = 1000
/** Failed attempts before the offending source is skipped (default). */
export const FLUSH_MAX_ATTEMPTS_DEFAULT = 3
/**
 * Largest `limit` of one {@link SourceJournalPort.related} call (the public search stops at 50).
 * It bounds one read, not the comparison set: a caller pages on `complete` until the search is
 * exhausted.
 */
export const RELATED_PAGE_MAX = 2 ** 40
/** Largest page of decision records. */
export const FLUSH_RECORDS_LIMIT_MAX = 100

/** A captured source as a window carries it (the canonical payload, decoded). */
export interface WindowSource {
  readonly sourceId: string
  readonly position: number
  readonly content: string
  readonly mediaType: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly occurredAt: string | null
  readonly capturedAt: string
}

/** The cursor as read: its position and the generation a later advance must still find. */
export interface JournalCursor {
  readonly position: number
  readonly generation: number
}

/** An error as flush reports and persists it. */
export interface FlushError {
  readonly code: string
  readonly message: string
}

/** The window after the cursor: `(cursor, min(high watermark, cursor + limit, until)]`. */
export interface SourceWindow {
  readonly scopeId: string
  readonly cursor: JournalCursor
  readonly highWatermark: number
  readonly sources: readonly WindowSource[]
  /** A failed window is retried one source at a time until its end (poison isolation). */
  readonly isolating: boolean
  /** Earlier failed attempts of the first source of the window, or null. */
  readonly failure: { readonly attempts: number; readonly error: FlushError } | null
}

/** One decision to apply; `sources` are ids of the window's sources (evidence). */
export type FlushDecision =
  | {
      readonly op: 'create'
      readonly kind: string
      readonly text: string
      readonly sources: readonly string[]
      readonly observedAt: string | null
      readonly reason: string | null
    }
  | {
      readonly op: 'update'
      /** The exact version the decision was planned against. */
      readonly target: ArtifactRef
      readonly kind: string
      readonly text: string
      readonly sources: readonly string[]
      /** Written as given (the planner keeps the later of target and candidate). */
      readonly observedAt: string | null
      readonly reason: string | null
    }
  | {
      readonly op: 'merge'
      /** Exact versions planned against; at least two. */
      readonly targets: readonly ArtifactRef[]
      readonly kind: string
      readonly text: string
      readonly sources: readonly string[]
      readonly observedAt: string | null
      readonly reason: string | null
    }
  | {
      /**
       * A re-check of a possibly stale memory (docs/agents.md "Freshness"): `keep` records that
       * the commits captured so far leave it true; `forget` forgets it. `sources` are the commits.
       */
      readonly op: 'keep' | 'forget'
      readonly target: ArtifactRef
      readonly sources: readonly string[]
      readonly reason: string | null
    }

/** What produced a window's decisions, stored with its record. */
export interface FlushRecordDraft {
  readonly mode: 'structured' | 'model'
  readonly model: string | null
  readonly promptVersion: string | null
  /** The audit body: candidates, retrieved memory ids, decisions, per-source outcomes. */
  readonly details: Readonly<Record<string, JsonValue>>
}

/** A planned window to apply: its decisions, the cursor it was read at, its record. */
export interface ApplyFlushCommand {
  readonly scopeId: string
  /** The cursor the window was read at; the advance fails if it moved. */
  readonly expected: JournalCursor
  /** The new cursor position: the last position of the window. */
  readonly through: number
  readonly decisions: readonly FlushDecision[]
  readonly record: FlushRecordDraft
}

/** Test hooks of an apply; production code passes none. */
export interface ApplyHooks {
  /** Runs inside the transaction after the decisions, before the cursor advance. */
  readonly afterDecisions?: () => void | Promise<void>
}

/** One applied decision. */
export interface AppliedDecision {
  readonly op: FlushDecision['op']
  readonly status: 'created' | 'unchanged' | 'updated' | 'merged' | 'forgotten' | 'kept'
  readonly memory: Memory
}

/** What an apply wrote: record, operation, new cursor, per-decision results, change rows. */
export interface ApplyFlushResult {
  readonly recordId: string
  readonly operationId: string
  readonly cursor: number
  readonly applied: readonly AppliedDecision[]
  /** Change-log rows the flush wrote, oldest first. */
  readonly changes: readonly MemoryChange[]
}

/** A source skipped after too many failed attempts (reported by flush and by `changes`). */
export interface SkippedSource {
  /** Its place in the scope's change sequence (shared with memory changes). */
  readonly seq: number
  readonly source: SourceRef
  readonly position: number
  readonly attempts: number
  readonly error: FlushError
  readonly at: string
}

/** A failed attempt of the window after `expected`, to count against its first source. */
export interface FlushFailureCommand {
  readonly scopeId: string
  readonly expected: JournalCursor
  /** Last position of the failed window. */
  readonly through: number
  readonly error: FlushError
  /** Skip the source once this many attempts failed (≥ 1). */
  readonly maxAttempts: number
  readonly record: FlushRecordDraft
}

/** What a failure record did: the attempt count and, at the limit, the skipped source. */
export interface FlushFailureResult {
  /** False when the cursor had moved (another flush got there first): nothing was written. */
  readonly recorded: boolean
  readonly attempts: number
  readonly skipped: SkippedSource | null
  readonly cursor: number
  /** The record of the skip (it advances the cursor), or null. */
  readonly recordId: string | null
}

/** A persisted decision record: one per cursor advance (auditable and replayable; docs/sources-and-flush.md). */
export interface FlushRecord {
  readonly recordId: string
  readonly scopeId: string
  /** The window `(fromPosition, toPosition]`. */
  readonly fromPosition: number
  readonly toPosition: number
  readonly mode: 'structured' | 'model'
  readonly model: string | null
  readonly promptVersion: string | null
  readonly operationId: string
  readonly createdAt: string
  readonly details: Readonly<Record<string, JsonValue>>
  /** Set when an administrator erased the record's details (docs/storage.md "Redaction"). */
  readonly redaction?: RedactionInfo
}

/** Which decision records to read. */
export interface FlushRecordsCommand {
  readonly scopeId: string
  /** One record by id. */
  readonly recordId?: string | undefined
  /** Records whose window ends after this position (keyset), oldest first. Default 0. */
  readonly after?: number | undefined
  /** 1–100, default 20. */
  readonly limit?: number | undefined
}

/** One page of decision records. */
export interface FlushRecordsResult {
  readonly records: readonly FlushRecord[]
  /** Pass as `after` for the next page, or null. */
  readonly nextAfter: number | null
}

/** A search without the public limit, for retrieve-then-decide (one page of it). */
export interface RelatedCommand {
  readonly scopeId: string
  readonly query: string
  readonly limit: number
}

/** The current content and evidence positions of memories (retrieval context of a decision). */
export interface RelatedMemory {
  readonly memory: Memory
  /** Highest journal position among its evidence sources, or null. */
  readonly position: number | null
}

/**
 * The flush port of a backend. Every method validates its input; `apply` and `fail` run in one
 * write transaction each, with the cursor compare-and-set on its generation.
 */
export interface SourceJournalPort {
  /** Reads cursor, high watermark and the window (one read transaction). */
  window(cmd: {
    readonly scopeId: string
    readonly limit?: number | undefined
    readonly until?: number | undefined
  }): Promise<SourceWindow>
  /**
   * Applies the decisions through the same in-transaction operations as explicit writes and
   * advances the cursor, in one transaction; stores the decision record.
   * @throws PowerContextError `revision_conflict` (cursor or a target moved), and any error of
   *   the operations; nothing is written then.
   */
  apply(cmd: ApplyFlushCommand, hooks?: ApplyHooks): Promise<ApplyFlushResult>
  /** Counts a failed attempt of the window's first source; skips it at `maxAttempts`. */
  fail(cmd: FlushFailureCommand): Promise<FlushFailureResult>
  records(cmd: FlushRecordsCommand): Promise<FlushRecordsResult>
  /** Scopes whose high watermark is beyond their cursor, in scope id order. */
  pendingScopes(cmd?: { readonly after?: string; readonly limit?: number }): Promise<string[]>
  /**
   * Active memories related to `query` (the search's admission rules), best first, at most
   * `limit`; `complete` says whether a larger limit could find more.
   */
  related(cmd: RelatedCommand): Promise<RankedSearchResult>
  /**
   * Possibly stale memories of the scope anchored to any of the paths, at most `limit` (a
   * flush's freshness re-check, docs/agents.md "Freshness").
   */
  staleAnchored(cmd: StaleAnchoredCommand): Promise<StaleMemory[]>
  /** Current versions of active memories of the scope (absent ids are skipped). */
  current(scopeId: string, memoryIds: readonly string[]): Promise<RelatedMemory[]>
}
