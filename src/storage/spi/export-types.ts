import type { EmbeddingProfile } from '../../core/embedding.js'
import type { MergeRecord } from '../../core/memory-model.js'
import type { ChangeRow, MemoryRow, SourceRow, VersionRow } from './dialect-tx.js'
import type { CursorRow, FailureRow, FlushRecordRow } from './journal-tx.js'
import type { LegacyCitationRow } from './legacy-tx.js'
import type { LegacyUpgradeRow } from './legacy-tx.js'
import type { RedactionRow } from './redaction-types.js'

/** Format tag of the first line. */
export const EXPORT_FORMAT = 'powercontext-export'
/**
 * Format version written; 2 adds the upgrade tables (`legacy_*` records), 3 the redaction records
 * (`redaction`, docs/storage.md), 4 their `recordId` (erased decision records).
 */
export const EXPORT_VERSION = 4
/** Versions an import reads. */
export const EXPORT_VERSIONS_READ: readonly number[] = [1, 2, 3, 4]

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
  | { readonly type: 'redaction'; readonly row: RedactionRow }
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
  'redaction',
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
