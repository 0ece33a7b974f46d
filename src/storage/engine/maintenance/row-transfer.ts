import { invalidRequest } from '../../../core/errors.js'
import type { ChangeRow, DialectTx, MemoryRow, VersionRow } from '../../spi/dialect-tx.js'
import type { ExportRecord, ImportReport, RowType } from '../../spi/export-types.js'
import { ROW_TYPES } from '../../spi/export-types.js'
import type { LegacyCitationKey } from '../../spi/legacy-tx.js'
import type { MemoryBackend } from '../../spi/memory-backend.js'
import {
  changeKeyProblems,
  memoryKeyProblems,
  problemOnly,
  requireSound,
  rowName,
} from '../row-damage.js'
import { isRedactedVersionRow, versionRowProblems } from '../version-codec.js'
import { paged } from './paged.js'

const PAGE = 1000

/** The problems of a memory, version or change row as read (other rows: none checked). */
function damageOf(type: RowType, row: unknown): [string, string[]] | undefined {
  if (type === 'memory') {
    const m = row as MemoryRow
    return [rowName.memory(m.memoryId), memoryKeyProblems(m)]
  }
  if (type === 'version') {
    const v = row as VersionRow
    // An erased version keeps its old hash as proof of history: sound, not damaged.
    const problems = isRedactedVersionRow(v) ? [] : versionRowProblems(v)
    return [rowName.version(v.memoryId, v.version), problems]
  }
  if (type === 'change') {
    const c = row as ChangeRow
    return [rowName.change(c.scopeId, c.seq), changeKeyProblems(c)]
  }
  return undefined
}

/**
 * Writes every row of one read transaction through `emit`, page by page; returns the counts.
 * A damaged memory, version or change row stops the export as `storage_unavailable` (`corrupt`)
 * naming it, unless `onDamaged` is given: then it is left out and reported there (salvage).
 */
export async function exportInTx(
  tx: DialectTx,
  emit: (r: ExportRecord) => Promise<void>,
  onDamaged?: (row: string, problem: string) => void,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(ROW_TYPES.map((t) => [t, 0]))
  const rows = async <T>(type: RowType, items: AsyncIterable<T>): Promise<void> => {
    for await (const row of items) {
      const [name, problems] = damageOf(type, row) ?? ['', []]
      if (problems.length > 0) {
        if (onDamaged === undefined) requireSound(name, problems)
        else onDamaged(name, problems.map(problemOnly).join('; '))
        continue
      }
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
  const redactions = (a: { scopeId: string; seq: number }, n: number) => tx.redactions.page(a, n)
  await rows(
    'redaction',
    paged({ scopeId: '', seq: 0 }, PAGE, redactions, (r) => r),
  )
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
