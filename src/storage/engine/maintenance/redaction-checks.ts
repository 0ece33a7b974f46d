/*
 * What `verify` knows of redactions (docs/storage.md "Redaction"): an erased version reads as the
 * marker and has a record, and its memory is not projected; an erased source keeps only the
 * marker payload and no upgraded original; an erased decision record keeps only its ids, positions
 * and counts; every record takes a number of its scope's change
 * sequence. A row that reads as erased without a record still fails its hash check.
 */
import { REDACTED_TEXT } from '../../../core/redaction.js'
import type { DialectTx, VersionRow } from '../../spi/dialect-tx.js'
import type { RedactionRow } from '../../spi/redaction-types.js'
import { redactedRecordDetails, redactedSourcePayload } from '../redaction/redaction-reads.js'
import { versionRowProblems } from '../version-codec.js'
import { paged } from './paged.js'

const versionKey = (memoryId: string, version: number): string => `${memoryId}@${version}`

/** Every redaction record, indexed for the row checks. */
export class Redactions {
  readonly rows: readonly RedactionRow[]
  readonly #versions: ReadonlySet<string>

  private constructor(rows: RedactionRow[]) {
    this.rows = rows
    this.#versions = new Set(
      rows.flatMap((r) => (r.memoryId === null ? [] : [versionKey(r.memoryId, r.version ?? 0)])),
    )
  }

  static async load(tx: DialectTx): Promise<Redactions> {
    const rows: RedactionRow[] = []
    const page = (a: { scopeId: string; seq: number }, n: number) => tx.redactions.page(a, n)
    for await (const r of paged({ scopeId: '', seq: 0 }, 1000, page, (x) => x)) rows.push(r)
    return new Redactions(rows)
  }

  /** True when the version's text was erased by record. */
  erased(v: { memoryId: string; version: number }): boolean {
    return this.#versions.has(versionKey(v.memoryId, v.version))
  }

  /** A version's problems: an erased one must read as the marker, any other must verify. */
  versionProblems(v: VersionRow): string[] {
    if (!this.erased(v)) return versionRowProblems(v)
    return v.text === REDACTED_TEXT
      ? []
      : [`version ${v.memoryId}@${v.version}: redacted by record but its text is still stored`]
  }

  /** Sequence numbers the records take, per scope. */
  seqs(): { scopeId: string; seq: number }[] {
    return this.rows.map((r) => ({ scopeId: r.scopeId, seq: r.seq }))
  }

  /** Erased sources must hold only the marker payload and no upgraded original. */
  async sourceProblems(tx: DialectTx): Promise<string[]> {
    const problems: string[] = []
    for (const r of this.rows) {
      if (r.target !== 'source' || r.sourceId === null) continue
      const type = r.sourceType ?? 'content'
      const row = await tx.getSource(r.scopeId, type, r.sourceId)
      if (row === undefined) {
        problems.push(`redaction ${r.scopeId}#${r.seq}: source ${r.sourceId} is missing`)
      } else if (row.payload !== redactedSourcePayload(row.payload)) {
        problems.push(`source ${r.sourceId} of ${r.scopeId}: redacted by record but still stored`)
      }
      if ((await tx.legacy.getPayload(r.scopeId, type, r.sourceId)) !== undefined) {
        problems.push(`source ${r.sourceId} of ${r.scopeId}: redacted but its original is kept`)
      }
    }
    return problems
  }

  /** Erased decision records must keep only what {@link redactedRecordDetails} keeps. */
  async recordProblems(tx: DialectTx): Promise<string[]> {
    const problems: string[] = []
    for (const r of this.rows) {
      if (r.target !== 'record' || r.recordId === null) continue
      const [row] = await tx.journal.listRecords({
        scopeId: r.scopeId,
        recordId: r.recordId,
        after: 0,
        limit: 1,
      })
      if (row === undefined) {
        problems.push(`redaction ${r.scopeId}#${r.seq}: decision record ${r.recordId} is missing`)
      } else if (row.detailsJson !== redactedRecordDetails(row.detailsJson)) {
        problems.push(
          `decision record ${r.recordId} of ${r.scopeId}: redacted by record but still stored`,
        )
      }
    }
    return problems
  }
}
