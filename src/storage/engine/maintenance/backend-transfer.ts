/**
 * The base backend's transfer verbs (docs/upgrade.md): the Python reference's upgrade
 * of one scope, and export / import of every authoritative row. Each runs in one transaction of
 * the backend's runner; the base backend exposes them as methods.
 */
import { invalidRequest } from '../../../core/errors.js'
import { checkScopeId } from '../../../core/ids.js'
import type { ExportRecord, ImportReport } from '../../spi/export-types.js'
import { EXPORT_FORMAT, EXPORT_VERSION } from '../../spi/export-types.js'
import type {
  LegacyScopeImport,
  LegacyScopeResult,
  TargetScopeState,
} from '../../spi/legacy-types.js'
import type { ReindexReport } from '../../spi/memory-backend.js'
import { importLegacyScopeInTx } from '../legacy/legacy-import.js'
import type { TxRunner, VectorSupport } from '../vectors/vector-support.js'
import { importInTx } from './row-import.js'
import { exportInTx } from './row-transfer.js'

/** What the transfer verbs need from the base backend. */
export interface TransferDeps {
  readonly run: TxRunner
  readonly now: () => Date
  readonly vectors: VectorSupport
  /** The backend's name, written in the export header. */
  readonly name: string
  /** Re-embeds the vectors after an import (a ready embedding model only). */
  readonly reindex: () => Promise<ReindexReport>
}

/** What the database holds for a scope an upgrade would write: an earlier upgrade, or data. */
export async function legacyScopeState(run: TxRunner, scopeId: string): Promise<TargetScopeState> {
  const id = checkScopeId(scopeId)
  return run.read(async (tx) => ({
    upgrade: await tx.legacy.getUpgrade(id),
    holdsData:
      (await tx.headSeq(id)) > 0 ||
      (await tx.journal.highWatermark(id)) > 0 ||
      (await tx.journal.getCursor(id)) !== undefined,
  }))
}

/**
 * Upgrades one scope from the Python reference in one write transaction (docs/upgrade.md):
 * every step is checked against this runtime's rules and written as it comes, so memory stays
 * bounded; any refusal rolls the whole scope back. A scope upgraded before is `already` and
 * nothing is written. `dryRun` does all of it and rolls back.
 * @throws PowerContextError `invalid_request` (a value this runtime would store differently,
 *   a history that does not replay, a scope that already holds data here), `source_not_found`.
 */
export async function importLegacyScope(
  deps: TransferDeps,
  input: LegacyScopeImport,
  options: { readonly dryRun?: boolean } = {},
): Promise<LegacyScopeResult> {
  const at = deps.now().toISOString()
  if (options.dryRun !== true) {
    const result = await deps.run.write((tx) => importLegacyScopeInTx(tx, input, at))
    if (result.status === 'upgraded' && deps.vectors.ready) deps.vectors.markBacklog(true)
    return result
  }
  // The rehearsal throws right after it finished, so the adapter rolls the transaction back;
  // an error before that is a real one.
  let rehearsed: LegacyScopeResult | undefined
  try {
    await deps.run.write(async (tx) => {
      rehearsed = await importLegacyScopeInTx(tx, input, at)
      throw new Error('dry run: roll back')
    })
  } catch (err) {
    if (rehearsed === undefined) throw err
  }
  return rehearsed as LegacyScopeResult
}

/**
 * Every authoritative row as export records, in one read snapshot, page by page. A damaged row
 * fails the export (`storage_unavailable`, `corrupt`) unless `onDamaged` takes it (salvage).
 */
export async function exportRows(
  deps: TransferDeps,
  emit: (record: ExportRecord) => void | Promise<void>,
  now: Date,
  onDamaged?: (row: string, problem: string) => void,
): Promise<Readonly<Record<string, number>>> {
  const send = async (r: ExportRecord): Promise<void> => {
    await emit(r)
  }
  return deps.run.read(async (tx) => {
    await send({
      type: 'header',
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      backend: deps.name,
      exportedAt: now.toISOString(),
    })
    const counts = await exportInTx(tx, send, onDamaged)
    await send({ type: 'end', counts })
    return counts
  })
}

/**
 * Imports an export into this empty database in one transaction, record by record as they
 * stream in (row-import.ts), then rebuilds projections; with a ready embedding model, vectors
 * are re-embedded after. A transaction that had to be retried cannot replay a consumed stream,
 * so it fails instead (run the import again).
 */
export async function importRows(
  deps: TransferDeps,
  records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>,
): Promise<ImportReport> {
  let started = false
  const report = await deps.run.write(async (tx) => {
    if (started) throw invalidRequest('import', 'the import was interrupted; run it again')
    started = true
    return importInTx(tx, records)
  })
  if (!deps.vectors.ready) return report
  deps.vectors.markBacklog(true)
  return { ...report, vectors: (await deps.reindex()).embedded }
}
