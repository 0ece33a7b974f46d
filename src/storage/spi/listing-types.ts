/**
 * The browsing reads of the storage SPI (the console, docs/console.md): the scopes of a database with
 * their memory counts, and the source journal of a scope (evidence content and flush status).
 * They are what a person looking at the memory needs (the web console, `powercontext scopes`).
 */
import type { MemoryState, SourceRef } from '../../core/memory-model.js'
import type { RedactionInfo } from '../../core/redaction.js'
import type { FlushError, WindowSource } from './flush-types.js'

/** Default and largest page of `listScopes`. */
export const SCOPES_LIMIT_DEFAULT = 100
export const SCOPES_LIMIT_MAX = 500
/** Default and largest page of `listSources`; largest id list of `getSources`. */
export const SOURCES_LIMIT_DEFAULT = 20
export const SOURCES_LIMIT_MAX = 100
/**
 * Byte budget of one `getSources` or `listSources` answer: the UTF-8 bytes of its sources'
 * payloads (content and metadata) and reference payloads. Sources are added in order until the
 * next would pass it; the first is always returned (one source is at most a 2 MiB request body).
 * The rest is continued by `remainingSourceIds` or `nextAfter`, so a read of a hundred large
 * sources never holds them all in memory or serialises them in one go.
 */
export const SOURCES_RESPONSE_BYTES_MAX = 1024 * 1024

export interface ListScopesCommand {
  /** Exclusive keyset cursor: the last scope id of the previous page. */
  readonly after?: string | undefined
  /** 1–500, default 100. */
  readonly limit?: number | undefined
}

/** One scope: memory counts per state, change sequence, journal counters. */
export interface ScopeSummary {
  readonly scopeId: string
  readonly counts: Readonly<Record<MemoryState, number>>
  readonly memoryCount: number
  /** The last change sequence number of the scope (0 before any change). */
  readonly headSeq: number
  /** Time of the newest change-log row, or null before any memory change. */
  readonly lastChangeAt: string | null
  /** The last captured journal position (0 without sources). */
  readonly highWatermark: number
  /** The flush cursor position. */
  readonly cursor: number
}

export interface ListScopesResult {
  readonly scopes: readonly ScopeSummary[]
  /** Pass as `after` for the next page, or null after the last one. */
  readonly nextAfter: string | null
}

/** A captured source as a reader sees it: payload, journal position, flush status. */
export interface SourceView extends Omit<WindowSource, 'sourceId'> {
  readonly source: SourceRef
  /** `processed` at or before the cursor, `skipped` when flush gave up on it, else `pending`. */
  readonly status: 'pending' | 'processed' | 'skipped'
  /** Failed flush attempts of the source (still failing or skipped), or null. */
  readonly failure: { readonly attempts: number; readonly error: FlushError } | null
  /**
   * For a source moved by `admin upgrade-from-reference`: its payload exactly as the Python
   * reference stored it (Pydantic JSON, metadata in its original key order); else null.
   */
  readonly legacyPayload: string | null
  /** When and why an administrator erased its content and metadata (`admin redact`); absent else. */
  readonly redaction?: RedactionInfo
}

export interface GetSourcesCommand {
  readonly scopeId: string
  /** 1–100 source ids of the scope. */
  readonly sourceIds: readonly string[]
}

export interface GetSourcesResult {
  /** In the order asked (a repeated id once), up to the byte budget. */
  readonly sources: readonly SourceView[]
  /**
   * Ids asked for (existing, in the order asked) that did not fit the answer's byte budget
   * ({@link SOURCES_RESPONSE_BYTES_MAX}): ask for them again. Empty when every source is in `sources`.
   */
  readonly remainingSourceIds: readonly string[]
}

export interface ListSourcesCommand {
  readonly scopeId: string
  /** Exclusive journal position; default 0. */
  readonly after?: number | undefined
  /** 1–100, default 20. */
  readonly limit?: number | undefined
}

export interface ListSourcesResult {
  readonly sources: readonly SourceView[]
  readonly cursor: number
  readonly highWatermark: number
  /**
   * Pass as `after` for the next page, or null after the last one. A page ends early (fewer than
   * `limit` sources) when the next source would pass {@link SOURCES_RESPONSE_BYTES_MAX}.
   */
  readonly nextAfter: number | null
}
