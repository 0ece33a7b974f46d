/*
 * How reads show erased items (docs/storage.md "Redaction"): a redacted version reads as the
 * marker with when and why it was erased; a redacted source's content reads as the marker with
 * empty metadata. Lookups run only for rows that read as the marker, so ordinary reads cost nothing.
 */
import { canonicalJson } from '../../../core/canonical.js'
import type { Memory } from '../../../core/memory-model.js'
import { REDACTED_TEXT, type RedactionInfo } from '../../../core/redaction.js'
import type { DialectTx, MemoryRow, SourceRow, VersionRow } from '../../spi/dialect-tx.js'
import type { RedactionRow } from '../../spi/redaction-types.js'
import { isRedactedVersionRow, viewOf } from '../version-codec.js'

/** A record as the reads show it. */
export function redactionInfoOf(r: RedactionRow): RedactionInfo {
  return Object.freeze({ redactedAt: r.redactedAt, reason: r.reason, rule: r.rule })
}

/** Caller views of versions of one memory, each redacted one with its record. */
export async function viewsOf(
  tx: DialectTx,
  versions: readonly VersionRow[],
  row: MemoryRow,
): Promise<Memory[]> {
  const redacted = versions.filter(isRedactedVersionRow)
  const records =
    redacted.length === 0 ? new Map<number, RedactionInfo>() : await recordsOf(tx, row.memoryId)
  return versions.map((v) => viewOf(v, row, records.get(v.version) ?? null))
}

/** The caller view of one version (see {@link viewsOf}). */
export async function viewOfVersion(
  tx: DialectTx,
  version: VersionRow,
  row: MemoryRow,
): Promise<Memory> {
  return (await viewsOf(tx, [version], row))[0] as Memory
}

async function recordsOf(tx: DialectTx, memoryId: string): Promise<Map<number, RedactionInfo>> {
  const rows = await tx.redactions.ofMemory(memoryId)
  return new Map(rows.map((r) => [r.version ?? 0, redactionInfoOf(r)]))
}

/** The payload a redacted source keeps: its media type and time, the marker as content, no metadata. */
export function redactedSourcePayload(payload: string): string {
  const p = JSON.parse(payload) as { media_type?: unknown; occurred_at?: unknown }
  return canonicalJson(
    {
      content: REDACTED_TEXT,
      media_type: typeof p.media_type === 'string' ? p.media_type : 'text/plain',
      metadata: {},
      occurred_at: typeof p.occurred_at === 'string' ? p.occurred_at : null,
    },
    'source',
  )
}

/** The record of a source that reads as the marker, or null (also for a source that was not erased). */
export async function sourceRedaction(
  tx: DialectTx,
  row: SourceRow,
): Promise<RedactionInfo | null> {
  if (row.payload !== redactedSourcePayload(row.payload)) return null
  const record = await tx.redactions.ofSource(row.scopeId, row.sourceType, row.sourceId)
  return record === undefined ? null : redactionInfoOf(record)
}
