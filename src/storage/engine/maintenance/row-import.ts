/*
 * Import of an export (`powercontext admin import`) into an empty database, in one transaction
 * and streamed: each record is checked and written as it arrives (memory stays bounded whatever
 * the size). Sequence numbers and positions must come out exactly as exported; a version whose
 * hash does not match its bytes, a truncated export or an inconsistent one fails the whole import,
 * which then leaves the database empty. Projections are rebuilt at the end.
 */
import { invalidRequest } from '../../../core/errors.js'
import { refuseSecrets, refuseSourceSecrets } from '../../../core/secret-rules.js'
import type { ChangeRow, DialectTx, MemoryRow } from '../../spi/dialect-tx.js'
import type { ExportRecord } from '../../spi/export-types.js'
import type { ImportReport } from '../../spi/export-types.js'
import type { RowType } from '../../spi/export-types.js'
import { EXPORT_FORMAT } from '../../spi/export-types.js'
import { EXPORT_VERSIONS_READ } from '../../spi/export-types.js'
import { ROW_TYPES } from '../../spi/export-types.js'
import { isRedactedVersionRow, versionRowProblems } from '../version-codec.js'
import { rebuildInTx } from './rebuild.js'

const RUN = 500

function fail(what: string): never {
  throw invalidRequest('import', what)
}

/** The change log as it streams in: runs appended per scope, gaps kept for skipped sources. */
class Sequences {
  readonly #tx: DialectTx
  #run: ChangeRow[] = []
  /** Seqs allocated for skipped sources that arrive later in the export (per scope). */
  readonly #reserved = new Map<string, Set<number>>()

  constructor(tx: DialectTx) {
    this.#tx = tx
  }

  async change(c: ChangeRow): Promise<void> {
    const last = this.#run.at(-1)
    if (
      last !== undefined &&
      (last.scopeId !== c.scopeId || last.seq + 1 !== c.seq || this.#run.length >= RUN)
    ) {
      await this.flush()
    }
    this.#run.push(c)
  }

  async flush(): Promise<void> {
    const run = this.#run
    const first = run[0]
    if (first === undefined) return
    this.#run = []
    // A gap before the run belongs to skipped sources whose failure rows come later.
    for (let next = (await this.#tx.headSeq(first.scopeId)) + 1; next < first.seq; next += 1) {
      if ((await this.#tx.journal.allocateSeq(first.scopeId)) !== next) this.#broken(first)
      const reserved = this.#reserved.get(first.scopeId) ?? new Set<number>()
      reserved.add(next)
      this.#reserved.set(first.scopeId, reserved)
    }
    const seqs = await this.#tx.appendChanges(first.scopeId, run)
    if (seqs.some((seq, k) => seq !== run[k]?.seq)) this.#broken(first)
  }

  /**
   * A skipped source or a redaction takes its number of the scope's sequence; numbers passed on
   * the way belong to skips or redactions that come later in the export.
   */
  async skip(f: { scopeId: string; skipSeq: number }): Promise<void> {
    await this.flush()
    const reserved = this.#reserved.get(f.scopeId) ?? new Set<number>()
    this.#reserved.set(f.scopeId, reserved)
    if (reserved.delete(f.skipSeq)) return
    for (;;) {
      const next = await this.#tx.journal.allocateSeq(f.scopeId)
      if (next === f.skipSeq) return
      if (next > f.skipSeq)
        fail(`change sequence of scope ${f.scopeId} is not contiguous at ${f.skipSeq}`)
      reserved.add(next)
    }
  }

  /** Every reserved number must have been claimed by a skipped source. */
  finish(): void {
    for (const [scopeId, seqs] of this.#reserved) {
      const [seq] = [...seqs]
      if (seq !== undefined) fail(`change sequence of scope ${scopeId} is not contiguous at ${seq}`)
    }
  }

  #broken(c: ChangeRow): never {
    fail(`change sequence of scope ${c.scopeId} is not contiguous at ${c.seq}`)
  }
}

/** A stored source payload (canonical JSON of content and metadata) must carry no credential. */
function refuseStoredSource(payload: string, at: string): void {
  let source: { content?: unknown; metadata?: unknown }
  try {
    source = JSON.parse(payload) as { content?: unknown; metadata?: unknown }
  } catch {
    return refuseSecrets({ [`${at}payload`]: payload })
  }
  refuseSourceSecrets(
    typeof source.content === 'string' ? source.content : payload,
    source.metadata,
    at,
  )
}

/** Writes one record; `merged` collects memories whose `merged_into` is set at the end. */
async function writeRecord(
  tx: DialectTx,
  r: Exclude<ExportRecord, { type: 'header' | 'end' }>,
  seqs: Sequences,
  merged: MemoryRow[],
  exportedAt: string,
  erased: Set<string>,
): Promise<void> {
  switch (r.type) {
    case 'profile':
      if (tx.vectors !== undefined && !(await tx.vectors.getProfile())) {
        await tx.vectors.insertProfile(r.profile, exportedAt)
      }
      return
    case 'memory':
      await tx.insertMemory({ ...r.row, mergedInto: null })
      if (r.row.mergedInto !== null) merged.push(r.row)
      return
    case 'version': {
      // An erased version proves itself by its redaction record, which comes later.
      if (isRedactedVersionRow(r.row)) erased.add(`${r.row.memoryId}@${r.row.version}`)
      const problem = isRedactedVersionRow(r.row) ? undefined : versionRowProblems(r.row)[0]
      if (problem !== undefined) fail(`version ${r.row.memoryId}@${r.row.version}: ${problem}`)
      const at = `version ${r.row.memoryId}@${r.row.version}`
      refuseSecrets({ [`${at} text`]: r.row.text, [`${at} reason`]: r.row.reason ?? undefined })
      await tx.insertVersion(r.row)
      return
    }
    case 'merge':
      return tx.insertMerge(r.row)
    case 'change':
      return seqs.change(r.row)
    case 'source':
      await seqs.flush()
      if ((await tx.nextSourcePosition(r.row.scopeId)) !== r.row.position) {
        fail(`sources of scope ${r.row.scopeId} are not contiguous at ${r.row.position}`)
      }
      refuseStoredSource(r.row.payload, `source ${r.row.scopeId}@${r.row.position} `)
      return tx.insertSource(r.row)
    case 'cursor':
      // The generation is a CAS token callers may hold: replay the CAS up to the exported one.
      for (let g = 0; g < r.row.generation; g += 1) {
        if (!(await tx.journal.casCursor(r.row, g)))
          fail(`cursor of ${r.row.scopeId} did not import`)
      }
      return
    case 'failure':
      if (r.row.skipSeq !== null) await seqs.skip({ ...r.row, skipSeq: r.row.skipSeq })
      return tx.journal.putFailure(r.row)
    case 'record':
      return tx.journal.insertRecord(r.row)
    case 'legacy_upgrade':
      return tx.legacy.insertUpgrade(r.row)
    case 'legacy_citation':
      return tx.legacy.insertCitation(r.row)
    case 'legacy_payload':
      refuseSecrets({
        [`legacy payload ${r.row.scopeId}/${r.row.sourceId}`]: Buffer.from(
          r.row.payloadBase64,
          'base64',
        ).toString('utf8'),
      })
      return tx.legacy.insertPayload({
        scopeId: r.row.scopeId,
        sourceType: r.row.sourceType,
        sourceId: r.row.sourceId,
        payload: Buffer.from(r.row.payloadBase64, 'base64'),
      })
    case 'redaction':
      await seqs.skip({ scopeId: r.row.scopeId, skipSeq: r.row.seq })
      if (r.row.memoryId !== null) erased.delete(`${r.row.memoryId}@${r.row.version}`)
      // Exports before format 4 had no erased decision records.
      return tx.redactions.insert({ ...r.row, recordId: r.row.recordId ?? null })
  }
}

/** Imports a stream of export records into the (empty) database of `tx`. */
export async function importInTx(
  tx: DialectTx,
  records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>,
): Promise<Omit<ImportReport, 'vectors'>> {
  const counts: Record<string, number> = Object.fromEntries(ROW_TYPES.map((t) => [t, 0]))
  const seqs = new Sequences(tx)
  const merged: MemoryRow[] = []
  const erased = new Set<string>()
  let started = false
  let ended = false
  let exportedAt = ''
  for await (const r of records) {
    if (!started) {
      if (r.type !== 'header' || r.format !== EXPORT_FORMAT) {
        fail(`the first line must be a ${EXPORT_FORMAT} header`)
      }
      if (!EXPORT_VERSIONS_READ.includes(r.version)) fail(`unknown export version ${r.version}`)
      if (
        (await tx.pages.memories('', 1)).length > 0 ||
        (await tx.pages.scopes('', 1)).length > 0
      ) {
        fail('import needs an empty database')
      }
      started = true
      exportedAt = r.exportedAt
      continue
    }
    if (ended) fail('the export has lines after its end record')
    if (r.type === 'header') fail('the export has a second header')
    if (r.type === 'end') {
      await seqs.flush()
      for (const t of ROW_TYPES) {
        if ((r.counts[t] ?? 0) !== counts[t]) fail(`the export is truncated (${t} rows)`)
      }
      ended = true
      continue
    }
    if (r.type !== 'profile') counts[r.type as RowType] = (counts[r.type as RowType] ?? 0) + 1
    await writeRecord(tx, r, seqs, merged, exportedAt, erased)
  }
  if (!started) fail(`the first line must be a ${EXPORT_FORMAT} header`)
  if (!ended) fail('the export is truncated (no end record)')
  seqs.finish()
  for (const key of erased) fail(`version ${key}: reads as erased but has no redaction record`)
  for (const m of merged) {
    const expected = { version: m.currentVersion, stateVersion: m.stateVersion }
    if (!(await tx.casMemory(m, expected))) fail(`memory ${m.memoryId} did not import`)
  }
  const rebuilt = await rebuildInTx(tx)
  await tx.vectors?.bumpEpoch()
  return { counts, heads: rebuilt.heads }
}
