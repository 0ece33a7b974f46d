/*
 * How reads show erased items (docs/storage.md "Redaction"): a redacted version reads as the
 * marker with when and why it was erased; a redacted source's content reads as the marker with
 * empty metadata; a redacted decision record keeps only ids, positions and counts. Lookups run
 * only for rows that read as erased, so ordinary reads cost nothing.
 */
import { canonicalJson } from '../../../core/canonical.js'
import type { Memory } from '../../../core/memory-model.js'
import { REDACTED_TEXT, type RedactionInfo } from '../../../core/redaction.js'
import type { DialectTx, MemoryRow, SourceRow, VersionRow } from '../../spi/dialect-tx.js'
import type { FlushRecordRow } from '../../spi/journal-tx.js'
import type { RedactionRow } from '../../spi/redaction-types.js'
import type { SourceBytesRow } from '../../spi/source-row.js'
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

/**
 * How every redacted source payload begins (keys in canonical order, `content` first and the
 * marker its value): a payload that begins otherwise is not one, and is not parsed to find out.
 */
const REDACTED_PAYLOAD_START = ((sample: string) => {
  const marker = JSON.stringify(REDACTED_TEXT)
  return sample.slice(0, sample.indexOf(marker) + marker.length)
})(redactedSourcePayload('{}'))

/** The record of a source that reads as the marker, or null (also for a source that was not erased). */
export async function sourceRedaction(
  tx: DialectTx,
  row: SourceRow | SourceBytesRow,
): Promise<RedactionInfo | null> {
  // The prefix test spares a source read (up to 1 MiB) a second parse of its payload.
  const head =
    typeof row.payload === 'string'
      ? row.payload.slice(0, REDACTED_PAYLOAD_START.length)
      : Buffer.from(row.payload.subarray(0, REDACTED_PAYLOAD_START.length)).toString('latin1')
  if (head !== REDACTED_PAYLOAD_START) return null
  const payload =
    typeof row.payload === 'string' ? row.payload : Buffer.from(row.payload).toString('utf8')
  if (payload !== redactedSourcePayload(payload)) return null
  const record = await tx.redactions.ofSource(row.scopeId, row.sourceType, row.sourceId)
  return record === undefined ? null : redactionInfoOf(record)
}

const ID_KEYS = ['memory_id', 'op', 'source_id', 'status'] as const
const NUMBER_KEYS = ['attempts', 'from_position', 'position', 'revision', 'to_position'] as const

/** Only the ids and numbers of an object (named keys), and of its `error` the code. */
function idsOf(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {}
  const o = v as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const k of ID_KEYS) if (typeof o[k] === 'string') out[k] = o[k]
  for (const k of NUMBER_KEYS) if (typeof o[k] === 'number') out[k] = o[k]
  const e = o['error'] as { code?: unknown } | undefined
  if (typeof e?.code === 'string') out['error'] = { code: e.code, message: REDACTED_TEXT }
  return out
}

const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [])

/**
 * The details a redacted decision record keeps: what proves history — the window's positions and
 * source ids, the applied changes (op, status, memory id, revision), their change seqs, skipped
 * sources (id, position, attempts, error code) and the number of model calls — and `redacted`
 * (the marker) instead of every text: candidates, model output, retrievals, error messages.
 * A fixed point: applied to its own output it returns it unchanged.
 */
export function redactedRecordDetails(detailsJson: string): string {
  const d = JSON.parse(detailsJson) as Record<string, unknown>
  const w = d['window'] as Record<string, unknown> | undefined
  const window =
    typeof w === 'object' && w !== null
      ? {
          ...idsOf(w),
          source_ids: listOf(w['source_ids']).filter((x) => typeof x === 'string'),
          ...(typeof w['isolating'] === 'boolean' ? { isolating: w['isolating'] } : {}),
        }
      : null
  return canonicalJson(
    {
      applied: listOf(d['applied']).map(idsOf),
      change_seqs: listOf(d['change_seqs']).filter((x) => typeof x === 'number'),
      model_calls: typeof d['model_calls'] === 'number' ? d['model_calls'] : 0,
      redacted: REDACTED_TEXT,
      skipped: listOf(d['skipped']).map(idsOf),
      window,
    },
    'record',
  )
}

/** How every erased record's details hold the marker (canonical JSON: no spaces). */
const REDACTED_MEMBER = `"redacted":${JSON.stringify(REDACTED_TEXT)}`

/** The record of a decision record that reads as erased, or null. */
export async function recordRedaction(
  tx: DialectTx,
  row: FlushRecordRow,
): Promise<RedactionInfo | null> {
  // A cheap test first: records of several MB are read often and are rarely erased.
  if (!row.detailsJson.includes(REDACTED_MEMBER)) return null
  if (row.detailsJson !== redactedRecordDetails(row.detailsJson)) return null
  const record = await tx.redactions.ofRecord(row.scopeId, row.recordId)
  return record === undefined ? null : redactionInfoOf(record)
}
