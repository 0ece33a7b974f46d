/*
 * Export of authoritative rows (`powercontext admin export`): memories, versions, merges, change
 * log, sources, cursors, failures, flush records and the upgrade tables as JSON-lines records,
 * read in one snapshot in keyset pages (bounded memory whatever the size). `row-import.ts` writes
 * them into an empty database of any backend. Together they move data between SQLite and a
 * MySQL-protocol database in either direction.
 */
import type { EmbeddingProfile } from '../../../core/embedding.js'
import { invalidRequest } from '../../../core/errors.js'
import type { MergeRecord } from '../../../core/memory-model.js'
import type {
  ChangeRow,
  DialectTx,
  MemoryRow,
  SourceRow,
  VersionRow,
} from '../../spi/dialect-tx.js'
import type { CursorRow, FailureRow, FlushRecordRow } from '../../spi/journal-tx.js'
import type { MemoryBackend } from '../../spi/memory-backend.js'
import type {
  LegacyCitationKey,
  LegacyCitationRow,
  LegacyUpgradeRow,
} from '../../sql/legacy-rows.js'
import { paged } from '../../sql/transfer-rows.js'

/** Format tag of the first line. */
export const EXPORT_FORMAT = 'powercontext-export'
/** Format version written; 2 adds the upgrade tables (`legacy_*` records). */
export const EXPORT_VERSION = 2
/** Versions an import reads. */
export const EXPORT_VERSIONS_READ: readonly number[] = [1, 2]

/** An upgraded source's original payload bytes, base64 in an export. */
export interface LegacyPayloadRecordRow {
  readonly scopeId: string
  readonly sourceType: string
  readonly sourceId: string
  readonly payloadBase64: string
}

/** One JSON line of an export. Rows keep the storage SPI's field names. */
export type ExportRecord =
  | {
      readonly type: 'header'
      readonly format: string
      readonly version: number
      readonly backend: string
      readonly exportedAt: string
    }
  | { readonly type: 'profile'; readonly profile: EmbeddingProfile }
  | { readonly type: 'memory'; readonly row: MemoryRow }
  | { readonly type: 'version'; readonly row: VersionRow }
  | { readonly type: 'merge'; readonly row: MergeRecord }
  | { readonly type: 'change'; readonly row: ChangeRow }
  | { readonly type: 'source'; readonly row: SourceRow }
  | { readonly type: 'cursor'; readonly row: CursorRow }
  | { readonly type: 'failure'; readonly row: FailureRow }
  | { readonly type: 'record'; readonly row: FlushRecordRow }
  | { readonly type: 'legacy_upgrade'; readonly row: LegacyUpgradeRow }
  | { readonly type: 'legacy_citation'; readonly row: LegacyCitationRow }
  | { readonly type: 'legacy_payload'; readonly row: LegacyPayloadRecordRow }
  | { readonly type: 'end'; readonly counts: Readonly<Record<string, number>> }

export type RowType = Exclude<ExportRecord['type'], 'header' | 'profile' | 'end'>
export const ROW_TYPES: readonly RowType[] = [
  'memory',
  'version',
  'merge',
  'change',
  'source',
  'cursor',
  'failure',
  'record',
  'legacy_upgrade',
  'legacy_citation',
  'legacy_payload',
]

/** What an import wrote. */
export interface ImportReport {
  /** Rows per record type. */
  readonly counts: Readonly<Record<string, number>>
  /** Active memories projected by the rebuild. */
  readonly heads: number
  /** Vectors embedded after the import (only with a ready embedding model). */
  readonly vectors?: number
}

const PAGE = 1000

/** Writes every row of one read transaction through `emit`, page by page; returns the counts. */
export async function exportInTx(
  tx: DialectTx,
  emit: (r: ExportRecord) => Promise<void>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(ROW_TYPES.map((t) => [t, 0]))
  const rows = async <T>(type: RowType, items: AsyncIterable<T>): Promise<void> => {
    for await (const row of items) {
      counts[type] = (counts[type] ?? 0) + 1
      await emit({ type, row } as ExportRecord)
    }
  }
  const p = tx.pages
  const profile = (await tx.vectors?.getProfile())?.profile
  if (profile !== undefined) await emit({ type: 'profile', profile })
  await rows(
    'memory',
    paged(
      '',
      PAGE,
      (a, n) => p.memories(a, n),
      (m) => m.memoryId,
    ),
  )
  await rows(
    'version',
    paged(
      { memoryId: '', version: 0 },
      PAGE,
      (a, n) => p.versions(a, n),
      (v) => v,
    ),
  )
  await rows(
    'merge',
    paged(
      '',
      PAGE,
      (a, n) => p.merges(a, n),
      (m) => m.mergeId,
    ),
  )
  await rows(
    'change',
    paged(
      { scopeId: '', seq: 0 },
      PAGE,
      (a, n) => p.changes(a, n),
      (c) => c,
    ),
  )
  const scopes = () =>
    paged(
      '',
      PAGE,
      (a, n) => p.scopes(a, n),
      (s) => s,
    )
  for await (const scopeId of scopes()) {
    const through = await tx.journal.highWatermark(scopeId)
    const page = (after: number, n: number) =>
      tx.journal.listSources(scopeId, after, Math.min(after + n, through))
    await rows(
      'source',
      paged(0, PAGE, page, (s) => s.position),
    )
  }
  await rows(
    'cursor',
    paged(
      '',
      PAGE,
      (a, n) => p.cursors(a, n),
      (c) => c.scopeId,
    ),
  )
  await rows(
    'failure',
    paged(
      { scopeId: '', position: 0 },
      PAGE,
      (a, n) => p.failures(a, n),
      (f) => f,
    ),
  )
  for await (const scopeId of scopes()) {
    const page = (after: number, limit: number) =>
      tx.journal.listRecords({ scopeId, recordId: undefined, after, limit })
    await rows(
      'record',
      paged(0, 100, page, (r) => r.toPosition),
    )
  }
  const l = tx.legacy
  await rows(
    'legacy_upgrade',
    paged(
      '',
      PAGE,
      (a, n) => l.listUpgrades(a, n),
      (u) => u.scopeId,
    ),
  )
  await rows(
    'legacy_citation',
    paged(
      undefined as LegacyCitationKey | undefined,
      PAGE,
      (a, n) => l.listCitations(a, n),
      (c) => c,
    ),
  )
  const payloads = paged(
    undefined as { scopeId: string; sourceType: string; sourceId: string } | undefined,
    100,
    (a, n) => l.listPayloads(a, n),
    (r) => r,
  )
  await rows('legacy_payload', {
    async *[Symbol.asyncIterator]() {
      for await (const r of payloads) {
        yield {
          scopeId: r.scopeId,
          sourceType: r.sourceType,
          sourceId: r.sourceId,
          payloadBase64: Buffer.from(r.payload).toString('base64'),
        }
      }
    },
  })
  return counts
}

/**
 * Writes every authoritative row of the backend through `emit`, read in one snapshot: a header,
 * the embedding profile (if any), the rows, and an `end` record with the counts.
 */
export function exportRows(
  backend: MemoryBackend,
  emit: (record: ExportRecord) => void | Promise<void>,
  now: Date = new Date(),
): Promise<Readonly<Record<string, number>>> {
  return backend.exportRows(emit, now)
}

/**
 * Imports an export (records in file order, streamed) into an empty database; see
 * `row-import.ts`.
 */
export function importRows(
  backend: MemoryBackend,
  records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>,
): Promise<ImportReport> {
  return backend.importRows(records)
}

/**
 * Parses and checks one JSON line of an export (shape only; rows are checked again on import).
 * @throws PowerContextError `invalid_request` naming the line.
 */
export function parseExportLine(line: string, lineNo: number): ExportRecord {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw invalidRequest('import', `line ${lineNo} is not JSON`)
  }
  const r = value as { type?: unknown; row?: unknown }
  if (typeof value !== 'object' || value === null || typeof r.type !== 'string') {
    throw invalidRequest('import', `line ${lineNo} is not an export record`)
  }
  const known = ['header', 'profile', 'end', ...ROW_TYPES] as readonly string[]
  if (!known.includes(r.type)) {
    throw invalidRequest('import', `line ${lineNo} has unknown type ${r.type}`)
  }
  if ((ROW_TYPES as readonly string[]).includes(r.type)) {
    if (typeof r.row !== 'object' || r.row === null) {
      throw invalidRequest('import', `line ${lineNo} has no row`)
    }
  }
  return value as ExportRecord
}
