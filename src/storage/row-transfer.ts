/*
 * Export and import of authoritative rows (`powercontext admin export|import`): memories,
 * versions, change log, merges, sources, cursors, failures and flush records as JSON-lines
 * records, read in one snapshot; import writes them into an empty database of any backend in one
 * transaction and rebuilds the projections there (heads, full-text rows; vectors are re-embedded
 * by a reindex). It moves data between SQLite and a MySQL-protocol database in either direction.
 */
import type { EmbeddingProfile } from '../core/embedding.js'
import { invalidRequest, PowerContextError } from '../core/errors.js'
import type { MergeRecord } from '../core/memory-model.js'
import { DatabaseMemoryBackend } from './database-memory-backend.js'
import type { ChangeRow, DialectTx, MemoryRow, SourceRow, VersionRow } from './dialect.js'
import type { CursorRow, FailureRow, FlushRecordRow } from './journal-rows.js'
import { rebuildInTx } from './maintenance.js'
import type { MemoryBackend } from './memory-backend.js'
import { versionRowProblems } from './version-codec.js'

/** Format tag of the first line. */
export const EXPORT_FORMAT = 'powercontext-export'
/** Format version; an importer refuses versions it does not know. */
export const EXPORT_VERSION = 1

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
  | { readonly type: 'end'; readonly counts: Readonly<Record<string, number>> }

type RowType = Exclude<ExportRecord['type'], 'header' | 'profile' | 'end'>
const ROW_TYPES: readonly RowType[] = [
  'memory',
  'version',
  'merge',
  'change',
  'source',
  'cursor',
  'failure',
  'record',
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

function databaseBackend(backend: MemoryBackend): DatabaseMemoryBackend {
  if (backend instanceof DatabaseMemoryBackend) return backend
  throw new PowerContextError(
    'capability_not_supported',
    `backend ${backend.name} cannot export or import rows`,
    { capability: 'export' },
  )
}

const RECORD_PAGE = 1000

async function exportInTx(
  tx: DialectTx,
  emit: (r: ExportRecord) => Promise<void>,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(ROW_TYPES.map((t) => [t, 0]))
  const row = async (type: RowType, value: unknown): Promise<void> => {
    counts[type] = (counts[type] ?? 0) + 1
    await emit({ type, row: value } as ExportRecord)
  }
  const profile = (await tx.vectors?.getProfile())?.profile
  if (profile !== undefined) await emit({ type: 'profile', profile })
  for (const m of await tx.allMemories()) await row('memory', m)
  for (const v of await tx.allVersions()) await row('version', v)
  for (const m of await tx.allMerges()) await row('merge', m)
  for (const c of await tx.allChanges()) await row('change', c)
  const scopes = [...(await tx.scopeSeqs()).keys()].sort()
  for (const scopeId of scopes) {
    const through = await tx.journal.highWatermark(scopeId)
    for (const s of await tx.journal.listSources(scopeId, 0, through)) await row('source', s)
  }
  for (const c of await tx.journal.allCursors()) await row('cursor', c)
  for (const f of await tx.journal.allFailures()) await row('failure', f)
  for (const scopeId of scopes) {
    for (let after = 0; ;) {
      const page = await tx.journal.listRecords({
        scopeId,
        recordId: undefined,
        after,
        limit: RECORD_PAGE,
      })
      for (const r of page) await row('record', r)
      const last = page.at(-1)
      if (last === undefined || page.length < RECORD_PAGE) break
      after = last.toPosition
    }
  }
  return counts
}

/**
 * Writes every authoritative row of the backend through `emit`, read in one snapshot: a header,
 * the embedding profile (if any), the rows, and an `end` record with the counts.
 * @throws PowerContextError `capability_not_supported` for a backend without raw rows.
 */
export async function exportRows(
  backend: MemoryBackend,
  emit: (record: ExportRecord) => void | Promise<void>,
  now: Date = new Date(),
): Promise<Readonly<Record<string, number>>> {
  const b = databaseBackend(backend)
  const send = async (r: ExportRecord): Promise<void> => {
    await emit(r)
  }
  return b.runMaintenance('read', async (tx) => {
    await send({
      type: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      backend: b.name,
      exportedAt: now.toISOString(),
    })
    const counts = await exportInTx(tx, send)
    await send({ type: 'end', counts })
    return counts
  })
}

function fail(what: string): PowerContextError {
  return invalidRequest('import', what)
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
    throw fail(`line ${lineNo} is not JSON`)
  }
  const r = value as { type?: unknown; row?: unknown }
  if (typeof value !== 'object' || value === null || typeof r.type !== 'string') {
    throw fail(`line ${lineNo} is not an export record`)
  }
  const known = ['header', 'profile', 'end', ...ROW_TYPES] as readonly string[]
  if (!known.includes(r.type)) throw fail(`line ${lineNo} has unknown type ${r.type}`)
  if ((ROW_TYPES as readonly string[]).includes(r.type)) {
    if (typeof r.row !== 'object' || r.row === null) throw fail(`line ${lineNo} has no row`)
  }
  return value as ExportRecord
}

function byType(records: readonly ExportRecord[]) {
  const of = <T extends ExportRecord['type']>(t: T) =>
    records.filter((r): r is Extract<ExportRecord, { type: T }> => r.type === t)
  const header = records[0]
  const end = records.at(-1)
  if (header?.type !== 'header' || header.format !== EXPORT_FORMAT) {
    throw fail(`the first line must be a ${EXPORT_FORMAT} header`)
  }
  if (header.version !== EXPORT_VERSION) throw fail(`unknown export version ${header.version}`)
  if (end?.type !== 'end') throw fail('the export is truncated (no end record)')
  for (const t of ROW_TYPES) {
    if ((end.counts[t] ?? 0) !== of(t).length) throw fail(`the export is truncated (${t} rows)`)
  }
  return { header, of }
}

async function importInTx(tx: DialectTx, records: readonly ExportRecord[]) {
  const { header, of } = byType(records)
  if ((await tx.allMemories()).length > 0 || (await tx.scopeSeqs()).size > 0) {
    throw fail('import needs an empty database')
  }
  const versions = of('version').map((r) => r.row)
  for (const v of versions) {
    const problems = versionRowProblems(v)
    if (problems.length > 0) throw fail(`version ${v.memoryId}@${v.version}: ${problems[0]}`)
  }
  const profile = of('profile')[0]?.profile
  if (profile !== undefined && tx.vectors !== undefined && !(await tx.vectors.getProfile())) {
    await tx.vectors.insertProfile(profile, header.exportedAt)
  }
  const sources = of('source').map((r) => r.row)
  sources.sort((a, b) => cmp(a.scopeId, b.scopeId) || a.position - b.position)
  for (const s of sources) {
    if ((await tx.nextSourcePosition(s.scopeId)) !== s.position) {
      throw fail(`sources of scope ${s.scopeId} are not contiguous at ${s.position}`)
    }
    await tx.insertSource(s)
  }
  const memories = of('memory').map((r) => r.row)
  for (const m of memories) await tx.insertMemory({ ...m, mergedInto: null })
  versions.sort((a, b) => cmp(a.memoryId, b.memoryId) || a.version - b.version)
  for (const v of versions) await tx.insertVersion(v)
  for (const m of memories.filter((m) => m.mergedInto !== null)) {
    const expected = { version: m.currentVersion, stateVersion: m.stateVersion }
    if (!(await tx.casMemory(m, expected))) throw fail(`memory ${m.memoryId} did not import`)
  }
  for (const m of of('merge').map((r) => r.row)) await tx.insertMerge(m)
  await importSequences(
    tx,
    of('change').map((r) => r.row),
    of('failure').map((r) => r.row),
  )
  for (const c of of('cursor').map((r) => r.row)) {
    // The generation is a CAS token callers may hold: replay the CAS up to the exported one.
    for (let g = 0; g < c.generation; g += 1) {
      if (!(await tx.journal.casCursor(c, g))) throw fail(`cursor of ${c.scopeId} did not import`)
    }
  }
  for (const r of of('record').map((x) => x.row)) await tx.journal.insertRecord(r)
  const rebuilt = await rebuildInTx(tx)
  await tx.vectors?.bumpEpoch()
  const counts = Object.fromEntries(ROW_TYPES.map((t) => [t, of(t).length]))
  return { counts, heads: rebuilt.heads }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Replays each scope's change sequence in order: runs of change rows through `appendChanges`,
 * skipped sources through `allocateSeq`; every number must come out as it was exported.
 */
async function importSequences(
  tx: DialectTx,
  changes: readonly ChangeRow[],
  failures: readonly FailureRow[],
): Promise<void> {
  const events = [
    ...changes.map((c) => ({ scopeId: c.scopeId, seq: c.seq, change: c })),
    ...failures
      .filter((f) => f.skipSeq !== null)
      .map((f) => ({ scopeId: f.scopeId, seq: f.skipSeq as number, failure: f })),
  ].sort((a, b) => cmp(a.scopeId, b.scopeId) || a.seq - b.seq)
  for (let i = 0; i < events.length;) {
    const first = events[i] as (typeof events)[number]
    if ('failure' in first) {
      if ((await tx.journal.allocateSeq(first.scopeId)) !== first.seq) {
        throw fail(`change sequence of scope ${first.scopeId} is not contiguous at ${first.seq}`)
      }
      await tx.journal.putFailure(first.failure)
      i += 1
      continue
    }
    const run: ChangeRow[] = []
    for (let e = events[i]; e !== undefined && 'change' in e && e.scopeId === first.scopeId;) {
      run.push(e.change)
      i += 1
      e = run.length < 500 ? events[i] : undefined
    }
    const seqs = await tx.appendChanges(first.scopeId, run)
    if (seqs.some((seq, k) => seq !== run[k]?.seq)) {
      throw fail(`change sequence of scope ${first.scopeId} is not contiguous at ${first.seq}`)
    }
  }
  for (const f of failures.filter((f) => f.skipSeq === null)) await tx.journal.putFailure(f)
}

/**
 * Imports an export into an empty database in one transaction (any failure leaves it empty),
 * checking every version's hash and that sequence numbers and positions come out as exported,
 * then rebuilds the projections; with a ready embedding model, vectors are re-embedded after.
 * @throws PowerContextError `invalid_request` (malformed, truncated or inconsistent export, or a
 *   database that is not empty), `capability_not_supported` (backend without raw rows).
 */
export async function importRows(
  backend: MemoryBackend,
  records: readonly ExportRecord[],
): Promise<ImportReport> {
  const b = databaseBackend(backend)
  const report = await b.runMaintenance('write', (tx) => importInTx(tx, records))
  if (b.vectorStatus().state !== 'ready') return report
  return { ...report, vectors: (await b.reindex()).embedded }
}
