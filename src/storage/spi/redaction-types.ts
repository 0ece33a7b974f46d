/*
 * The administrative erase (`admin redact`, docs/storage.md "Redaction"): commands, results and
 * the row verbs an adapter offers for it inside one transaction (SQL only).
 */
import type { ArtifactRef, SourceType } from '../../core/memory-model.js'
import type { RedactionTarget } from '../../core/redaction.js'
import type { FlushRecordRow } from './journal-tx.js'
import type { VersionRow } from './rows.js'

/**
 * What to erase: one source, one memory version, one flush decision record, or every match of the
 * secret rules.
 */
export type RedactSelector =
  | { readonly sourceId: string }
  | { readonly memoryRef: ArtifactRef }
  | { readonly recordId: string }
  | { readonly scan: true }

export interface RedactCommand {
  readonly scopeId: string
  readonly target: RedactSelector
  /** Recorded with the redaction (≤ 512 characters); default names the rule or the administrator. */
  readonly reason?: string | null | undefined
  /** List what would be erased (ids and rules, never the text); change nothing. */
  readonly dryRun?: boolean | undefined
}

/** One erased (or, in a dry run, erasable) item. Never carries the erased text. */
export interface RedactedItem {
  readonly target: RedactionTarget
  readonly sourceId: string | null
  readonly memoryRef: ArtifactRef | null
  /** The decision record's id (target `record`), else null. */
  readonly recordId: string | null
  /** The secret rule that matched (scan), else null. */
  readonly rule: string | null
  /**
   * The stored fields the match was found in (scan), e.g. `text`, `reason`, `content`,
   * `details.candidates`; empty for an explicit target and for a record erased with its source.
   */
  readonly fields: readonly string[]
  /** `redacted` now, `unchanged` when it already was (a repeat), `would_redact` in a dry run. */
  readonly status: 'redacted' | 'unchanged' | 'would_redact'
  /** The change-feed sequence number of the redaction (null in a dry run). */
  readonly seq: number | null
}

/** What the database did to let go of the erased bytes (docs/storage.md). */
export interface ErasureReport {
  /** True when the erased bytes are gone from the database files as far as this backend can tell. */
  readonly filesClean: boolean
  /** The steps run (e.g. `fts_optimize`, `vacuum`, `wal_checkpoint_truncate`, `optimize_table`). */
  readonly steps: readonly string[]
  /** Why the files may still hold erased bytes (another process kept the WAL busy …), else null. */
  readonly pending: string | null
  readonly ms: number
}

export interface RedactResult {
  readonly dryRun: boolean
  readonly items: readonly RedactedItem[]
  /** Null in a dry run or when nothing was erased. */
  readonly erasure: ErasureReport | null
}

/** One redaction record: takes a number of the scope's change sequence. */
export interface RedactionRow {
  readonly scopeId: string
  readonly seq: number
  readonly target: RedactionTarget
  readonly sourceType: SourceType | null
  readonly sourceId: string | null
  readonly memoryId: string | null
  readonly version: number | null
  /** The decision record's id (target `record`), else null. */
  readonly recordId: string | null
  readonly rule: string | null
  readonly reason: string
  readonly redactedAt: string
  readonly operationId: string
}

/** Row verbs of redaction; `DialectTx.redactions` carries them. */
export interface RedactionTx {
  insert(row: RedactionRow): Promise<void>
  /** Redaction records of the scope with `since < seq ≤ upTo`, by seq. */
  between(scopeId: string, since: number, upTo: number): Promise<RedactionRow[]>
  /** Records of the given versions of one memory (any of them). */
  ofMemory(memoryId: string): Promise<RedactionRow[]>
  ofSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
  ): Promise<RedactionRow | undefined>
  /** The record of an erased decision record. */
  ofRecord(scopeId: string, recordId: string): Promise<RedactionRow | undefined>
  /** Decision records of the scope whose window holds the position (`from < position ≤ to`). */
  recordsCovering(scopeId: string, position: number): Promise<FlushRecordRow[]>
  /** Decision records of the scope written by the operation (the flush that wrote a version). */
  recordsOfOperation(scopeId: string, operationId: string): Promise<FlushRecordRow[]>
  /** Every record, by (scope, seq), after the given key (export, verify). */
  page(after: { scopeId: string; seq: number }, limit: number): Promise<RedactionRow[]>
  /** Versions of one scope by (memory id, version) after the given key (scan). */
  scopeVersions(
    scopeId: string,
    after: { memoryId: string; version: number },
    limit: number,
  ): Promise<VersionRow[]>
  /** Replaces a version's text and reason, and the reasons of the change rows that wrote it. */
  eraseVersion(
    memoryId: string,
    version: number,
    operationId: string,
    marker: string,
  ): Promise<void>
  /**
   * Replaces a source's payload and its failed attempts' error messages; drops its upgraded
   * original payload.
   */
  eraseSource(
    scopeId: string,
    sourceType: SourceType,
    sourceId: string,
    payload: string,
  ): Promise<void>
  /** Replaces a decision record's details. */
  eraseRecord(scopeId: string, recordId: string, detailsJson: string): Promise<void>
}

/** A redaction as the change feed reports it (it shares the scope's sequence with changes). */
export interface RedactionEntry {
  readonly seq: number
  readonly target: RedactionTarget
  readonly sourceId: string | null
  readonly memoryRef: ArtifactRef | null
  readonly recordId: string | null
  readonly rule: string | null
  readonly reason: string
  readonly redactedAt: string
  readonly operationId: string
}

/** A record as the change feed reports it. */
export function toRedactionEntry(r: RedactionRow): RedactionEntry {
  return Object.freeze({
    seq: r.seq,
    target: r.target,
    sourceId: r.sourceId,
    memoryRef:
      r.memoryId === null
        ? null
        : Object.freeze({ artifactId: r.memoryId, revision: r.version ?? 0 }),
    recordId: r.recordId,
    rule: r.rule,
    reason: r.reason,
    redactedAt: r.redactedAt,
    operationId: r.operationId,
  })
}
