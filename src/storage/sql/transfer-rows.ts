/**
 * Keys of two columns continue with `a >= ? AND (a > ? OR b > ?)`: a range on the leading
 * column that SQLite and the MySQL family both serve from the index (an `a > ? OR (a = ? AND …)`
 * made SQLite scan the table for every page).
 *
 * Keyset pages over the authoritative tables (export, import checks, paged rebuild), written once
 * over the small session both adapters offer (SQL only). `DialectTx.pages` carries
 * them. Every page is ordered by the table's key and starts after the last key of the previous
 * one, so a whole table is read in bounded memory.
 */
import type { MergeRecord } from '../../core/memory-model.js'
import type { ChangeRow, HeadRow, MemoryRow, VersionRow } from '../spi/dialect-tx.js'
import type { CursorRow, FailureRow } from '../spi/journal-tx.js'
import type { TransferTx } from '../spi/transfer-tx.js'
import {
  CHANGE_COLUMNS,
  CURSOR_COLUMNS,
  FAILURE_COLUMNS,
  HEAD_COLUMNS,
  MEMORY_COLUMNS,
  MERGE_COLUMNS,
  VERSION_COLUMNS,
} from './columns.js'
import type { SqlSession } from './session.js'

const list = (n: number): string => Array.from({ length: n }, () => '?').join(', ')

/** One page after `after` of a table keyed by one column. */
const pageByOne = (select: string, table: string, key: string): string =>
  `SELECT ${select} FROM ${table} WHERE ${key} > ? ORDER BY ${key} LIMIT ?`

/** One page after `(a, b)` of a table keyed by two columns (see the file comment). */
const pageByTwo = (select: string, table: string, a: string, b: string): string =>
  `SELECT ${select} FROM ${table} WHERE ${a} >= ? AND (${a} > ? OR ${b} > ?) ORDER BY ${a}, ${b} LIMIT ?`

/** The paged reads of one transaction. */
export class TransferRows implements TransferTx {
  readonly #s: SqlSession

  constructor(session: SqlSession) {
    this.#s = session
  }

  /** Memory rows by id after `after`. */
  memories(after: string, limit: number): Promise<MemoryRow[]> {
    return this.#s.all(pageByOne(MEMORY_COLUMNS, 'memories', 'memory_id'), [after, limit])
  }

  /** Versions by (memory id, version) after the given key. */
  versions(after: { memoryId: string; version: number }, limit: number): Promise<VersionRow[]> {
    return this.#s.all(pageByTwo(VERSION_COLUMNS, 'memory_versions', 'memory_id', 'version'), [
      after.memoryId,
      after.memoryId,
      after.version,
      limit,
    ])
  }

  /** Change rows by (scope, seq) after the given key. */
  changes(after: { scopeId: string; seq: number }, limit: number): Promise<ChangeRow[]> {
    return this.#s.all(pageByTwo(CHANGE_COLUMNS, 'memory_changes', 'scope_id', 'seq'), [
      after.scopeId,
      after.scopeId,
      after.seq,
      limit,
    ])
  }

  /** Head projection rows by memory id after `after`. */
  heads(after: string, limit: number): Promise<HeadRow[]> {
    return this.#s.all(pageByOne(HEAD_COLUMNS, 'memory_heads', 'memory_id'), [after, limit])
  }

  /** Change rows by (memory id, seq) after the given key (a memory's transitions in order). */
  changesByMemory(after: { memoryId: string; seq: number }, limit: number): Promise<ChangeRow[]> {
    return this.#s.all(pageByTwo(CHANGE_COLUMNS, 'memory_changes', 'memory_id', 'seq'), [
      after.memoryId,
      after.memoryId,
      after.seq,
      limit,
    ])
  }

  /** Merge records (with their inputs in order) by merge id after `after`. */
  async merges(after: string, limit: number): Promise<MergeRecord[]> {
    const rows = await this.#s.all<Omit<MergeRecord, 'inputs'>>(
      pageByOne(MERGE_COLUMNS, 'merges', 'merge_id'),
      [after, limit],
    )
    if (rows.length === 0) return []
    const inputs = await this.#s.all<{ mergeId: string; artifactId: string; revision: number }>(
      `SELECT merge_id AS mergeId, memory_id AS artifactId, version AS revision FROM merge_inputs
       WHERE merge_id IN (${list(rows.length)}) ORDER BY merge_id, ordinal`,
      rows.map((r) => r.mergeId),
    )
    const byMerge = new Map<string, { artifactId: string; revision: number }[]>()
    for (const { mergeId, artifactId, revision } of inputs) {
      const refs = byMerge.get(mergeId) ?? []
      refs.push({ artifactId, revision: Number(revision) })
      byMerge.set(mergeId, refs)
    }
    return rows.map((r) => ({ ...r, inputs: byMerge.get(r.mergeId) ?? [] }))
  }

  /** Scope ids after `after`. */
  async scopes(after: string, limit: number): Promise<string[]> {
    const rows = await this.#s.all<{ scopeId: string }>(
      pageByOne('scope_id AS scopeId', 'scopes', 'scope_id'),
      [after, limit],
    )
    return rows.map((r) => r.scopeId)
  }

  /** Cursors by scope after `after`. */
  cursors(after: string, limit: number): Promise<CursorRow[]> {
    return this.#s.all(pageByOne(CURSOR_COLUMNS, 'source_cursors', 'scope_id'), [after, limit])
  }

  /** Failure rows by (scope, position) after the given key. */
  failures(after: { scopeId: string; position: number }, limit: number): Promise<FailureRow[]> {
    return this.#s.all(pageByTwo(FAILURE_COLUMNS, 'source_failures', 'scope_id', 'position'), [
      after.scopeId,
      after.scopeId,
      after.position,
      limit,
    ])
  }
}
