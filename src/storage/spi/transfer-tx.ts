import type { MergeRecord } from '../../core/memory-model.js'
import type { CursorRow, FailureRow } from './journal-tx.js'
import type { ChangeRow, HeadRow, MemoryRow, VersionRow } from './rows.js'

/** Keyset pages over the authoritative tables of one transaction (export, import, paged rebuild). */
export interface TransferTx {
  /** Memory rows by id after `after`. */
  memories(after: string, limit: number): Promise<MemoryRow[]>
  /** Versions by (memory id, version) after the given key. */
  versions(after: { memoryId: string; version: number }, limit: number): Promise<VersionRow[]>
  /** Change rows by (scope, seq) after the given key. */
  changes(after: { scopeId: string; seq: number }, limit: number): Promise<ChangeRow[]>
  /** Head projection rows by memory id after `after`. */
  heads(after: string, limit: number): Promise<HeadRow[]>
  /** Change rows by (memory id, seq) after the given key (a memory's transitions in order). */
  changesByMemory(after: { memoryId: string; seq: number }, limit: number): Promise<ChangeRow[]>
  /** Merge records (with their inputs in order) by merge id after `after`. */
  merges(after: string, limit: number): Promise<MergeRecord[]>
  /** Scope ids after `after`. */
  scopes(after: string, limit: number): Promise<string[]>
  /** Cursors by scope after `after`. */
  cursors(after: string, limit: number): Promise<CursorRow[]>
  /** Failure rows by (scope, position) after the given key. */
  failures(after: { scopeId: string; position: number }, limit: number): Promise<FailureRow[]>
}
