/**
 * Row verbs of the source journal (cursor, failures, decision records) an adapter offers inside
 * one transaction: SQL only, no decision. `DialectTx.journal` carries them.
 */
import type { SourceBytesRow, SourceRow } from './source-row.js'

/** A scope's flush cursor: the last processed journal position, CAS on `generation`. */
export interface CursorRow {
  readonly scopeId: string
  readonly position: number
  /** 0 while no row exists; every change increments it. */
  readonly generation: number
  /** A failed window is retried one source at a time up to this position. */
  readonly isolateThrough: number
  readonly updatedAt: string
}

/** Failed attempts of one source; `skipped` once it was given up on. */
export interface FailureRow {
  readonly scopeId: string
  readonly position: number
  readonly sourceId: string
  readonly attempts: number
  readonly errorCode: string
  readonly errorMessage: string
  readonly state: 'failing' | 'skipped'
  /** Change sequence number of the skip (shared with memory changes), null while failing. */
  readonly skipSeq: number | null
  readonly firstFailedAt: string
  readonly lastFailedAt: string
}

/** One decision record as stored; `detailsJson` is canonical JSON. */
export interface FlushRecordRow {
  readonly recordId: string
  readonly scopeId: string
  readonly fromPosition: number
  readonly toPosition: number
  readonly mode: 'structured' | 'model'
  readonly model: string | null
  readonly promptVersion: string | null
  readonly operationId: string
  readonly createdAt: string
  readonly detailsJson: string
}

/** The journal verbs of one transaction (SQL only; the base class decides). */
export interface JournalTx {
  getCursor(scopeId: string): Promise<CursorRow | undefined>
  /**
   * Writes the cursor iff its stored generation is still `expectedGeneration` (0: no row yet),
   * setting generation + 1; false when it moved.
   */
  casCursor(
    next: {
      readonly scopeId: string
      readonly position: number
      readonly isolateThrough: number
      readonly updatedAt: string
    },
    expectedGeneration: number,
  ): Promise<boolean>
  /** The scope's last captured position (0 when none). */
  highWatermark(scopeId: string): Promise<number>
  /** Sources with `after < position ≤ through`, in position order. */
  listSources(scopeId: string, after: number, through: number): Promise<SourceRow[]>
  /**
   * The UTF-8 bytes of the stored payload at `position` (undefined when none), without reading
   * the payload out: a reader sizes a source before it decides to read it.
   */
  payloadBytes(scopeId: string, position: number): Promise<number | undefined>
  /** The source at `position` with its payload as stored UTF-8 bytes (undefined when none). */
  sourceAt(scopeId: string, position: number): Promise<SourceBytesRow | undefined>
  /** Positions of the given content source ids of the scope (absent ids are missing). */
  positionsOf(scopeId: string, sourceIds: readonly string[]): Promise<Map<string, number>>
  getFailure(scopeId: string, position: number): Promise<FailureRow | undefined>
  /** Failure rows (failing or skipped) with `after < position ≤ through`, in position order. */
  failuresBetween(scopeId: string, after: number, through: number): Promise<FailureRow[]>
  putFailure(row: FailureRow): Promise<void>
  /** Removes `failing` rows at or before `through` (their sources were processed). */
  clearFailures(scopeId: string, through: number): Promise<void>
  /** Allocates the next number of the scope's change sequence (without a memory change row). */
  allocateSeq(scopeId: string): Promise<number>
  /** Skipped sources with `since < skipSeq ≤ upTo`, in seq order. */
  skippedBetween(scopeId: string, since: number, upTo: number): Promise<FailureRow[]>
  insertRecord(row: FlushRecordRow): Promise<void>
  /** Records of the scope (one by id, or those ending after `after`), by window end. */
  listRecords(q: {
    readonly scopeId: string
    readonly recordId: string | undefined
    readonly after: number
    readonly limit: number
  }): Promise<FlushRecordRow[]>
  /** Scopes with sources beyond their cursor, by scope id, after `after`. */
  pendingScopes(after: string, limit: number): Promise<string[]>
  /** Maintenance: every cursor, failure row and record (windows only, no details). */
  allCursors(): Promise<CursorRow[]>
  allFailures(): Promise<FailureRow[]>
  allRecordWindows(): Promise<{ scopeId: string; fromPosition: number; toPosition: number }[]>
}
