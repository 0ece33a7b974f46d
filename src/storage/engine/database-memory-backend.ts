import type { Embedder } from '../../core/embedding.js'
import { newMemoryId, newOperationId } from '../../core/ids.js'
import type { DialectTx } from '../spi/dialect-tx.js'
import type { ExportRecord, ImportReport } from '../spi/export-types.js'
import type { FreshnessCommand, FreshnessResult } from '../spi/freshness-types.js'
import type { LegacyScopeImport, LegacyScopeResult, TargetScopeState } from '../spi/legacy-types.js'
import type * as L from '../spi/listing-types.js'
import type * as Spi from '../spi/memory-backend.js'
import type * as R from '../spi/redaction-types.js'
import { SourceJournal } from './journal/source-journal.js'
import {
  exportRows,
  importLegacyScope,
  importRows,
  legacyScopeState,
  type TransferDeps,
} from './maintenance/backend-transfer.js'
import { rebuildInTx } from './maintenance/rebuild.js'
import { verifyReport } from './maintenance/verify-report.js'
import { captureInTx, checkCaptureSliced } from './ops/capture.js'
import { changes } from './ops/changes-feed.js'
import { forget } from './ops/forget.js'
import { checkFreshness, freshnessOfRefs, markFreshInTx } from './ops/freshness.js'
import { get } from './ops/get.js'
import { history } from './ops/history.js'
import { list } from './ops/list.js'
import * as listing from './ops/listing.js'
import { merge } from './ops/merge.js'
import { checkRecent, recentInTx } from './ops/recent.js'
import { remember } from './ops/remember.js'
import { restore } from './ops/restore.js'
import { restorePreview } from './ops/restore-plan.js'
import { search } from './ops/search.js'
import { update } from './ops/update.js'
import { ReceiptLog } from './receipts/receipt-log.js'
import { checkRedact, NO_ERASE_STEP, redact } from './redaction/redact.js'
import { searchInMode, searchModesOf } from './search/search-modes.js'
import { reindexVectors } from './vectors/reindex.js'
import { type TxRunner, VectorSupport } from './vectors/vector-support.js'
import type { OpDeps, WriteContext } from './write-context.js'

/** Options every database backend accepts. */
export interface DatabaseBackendOptions {
  /** Clock for `created_at`/`at` stamps; default `() => new Date()`. */
  readonly now?: () => Date
  /**
   * Embedding model for the vector projection (docs/storage.md). Its profile is fixed in the database
   * when first configured; a different profile later leaves the backend without vectors.
   */
  readonly embedder?: Embedder | undefined
}

/**
 * The abstract base of every database backend: through the operations of `ops/` (one file per
 * operation, owning its checks and its transaction body) it validates every command, owns
 * canonical bytes, hashes, the state machine, CAS decisions, evidence checks and hit re-checks.
 * Adapters implement only transactions and the row verbs of {@link DialectTx}.
 */
export abstract class DatabaseMemoryBackend implements Spi.MemoryBackend {
  abstract readonly name: string
  readonly #now: () => Date
  readonly #vectors: VectorSupport
  readonly #run: TxRunner = {
    read: (work) => this.inReadTransaction(work),
    write: (work) => this.inWriteTransaction(work),
  }

  /** The source journal (docs/sources-and-flush.md): flush windows, cursor CAS, failures, decision records. */
  readonly journal: SourceJournal
  /** The receipt log (docs/agents.md "Receipts"). */
  readonly receipts: ReceiptLog

  constructor(options: DatabaseBackendOptions = {}) {
    this.#now = options.now ?? (() => new Date())
    this.#vectors = new VectorSupport(options.embedder)
    this.receipts = new ReceiptLog(this.#run, this.#now)
    this.journal = new SourceJournal({
      run: this.#run,
      now: this.#now,
      context: (texts) => this.#context(texts),
      search: (q) => searchInMode(this.#run, this.#vectors, q, 'auto', this.fullTextProblem),
    })
  }

  /**
   * Why full-text search cannot run (the adapter's startup probe failed), or null; adapters with
   * such a probe override it.
   */
  protected get fullTextProblem(): string | null {
    return null
  }

  /** Full-text and vector capabilities and the search modes derived from them. */
  get capabilities(): Spi.BackendCapabilities {
    const profile = this.#vectors.profile
    const fts = this.fullTextProblem === null
    const vector = profile !== null
    return { fts, vector, embeddingProfile: profile, searchModes: searchModesOf(fts, vector) }
  }

  /**
   * Settles the vector side once the schema is current (adapters call it at open): fixes the
   * embedding profile in the database on first use, or finds it differs (no vector capability).
   */
  protected async initVectors(): Promise<void> {
    const at = this.#now().toISOString()
    await this.inWriteTransaction((tx) => this.#vectors.init(tx, at))
  }

  /** The vector side's state (capabilities, readiness, background reindex). */
  vectorStatus(): Spi.VectorStatus {
    return this.#vectors.status()
  }

  /** Runs `work` in one write transaction: commit on return, roll back and rethrow on error. */
  protected abstract inWriteTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T>
  /** Runs `work` in one read transaction over a consistent snapshot. */
  protected abstract inReadTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T>
  abstract close(): Promise<void>

  /** The write context, with vectors embedded (outside any transaction) for the given texts. */
  async #context(texts: readonly string[] = []): Promise<WriteContext> {
    const vectors = await this.#vectors.prepare(texts)
    const now = this.#now()
    return {
      operationId: newOperationId(now.getTime()),
      at: now.toISOString(),
      newMemoryId: () => newMemoryId(now.getTime()),
      vectors,
    }
  }

  /** What the operations of `ops/` take: transactions, the write context, texts to project. */
  readonly #ops: OpDeps = {
    run: this.#run,
    context: (texts) => this.#context(texts),
    textsToProject: async (plan) =>
      this.#vectors.ready ? this.inReadTransaction(plan).catch(() => []) : [],
  }

  // The memory operations: each `ops/<op>.ts` owns its checks and its transaction body.
  remember(cmd: Spi.RememberCommand): Promise<Spi.RememberResult> {
    return remember(this.#ops, cmd)
  }
  update(cmd: Spi.UpdateCommand): Promise<Spi.UpdateResult> {
    return update(this.#ops, cmd)
  }
  forget(cmd: Spi.ForgetCommand): Promise<Spi.ForgetResult> {
    return forget(this.#ops, cmd)
  }
  restore(cmd: Spi.RestoreCommand): Promise<Spi.RestoreResult> {
    return restore(this.#ops, cmd)
  }
  restorePreview(cmd: Spi.RestorePreviewCommand): Promise<Spi.RestorePreviewResult> {
    return restorePreview(this.#run, cmd)
  }
  merge(cmd: Spi.MergeCommand): Promise<Spi.MergeResult> {
    return merge(this.#ops, cmd)
  }
  get(cmd: Spi.GetCommand): Promise<Spi.GetResult> {
    return get(this.#run, cmd)
  }
  history(cmd: Spi.HistoryCommand): Promise<Spi.HistoryResult> {
    return history(this.#run, cmd)
  }
  list(cmd: Spi.ListCommand): Promise<Spi.ListResult> {
    return list(this.#run, cmd)
  }
  search(cmd: Spi.SearchCommand): Promise<Spi.SearchResult> {
    return search(this.#run, this.#vectors, cmd, this.fullTextProblem)
  }
  changes(cmd: Spi.ChangesCommand): Promise<Spi.ChangesResult> {
    return changes(this.#run, cmd)
  }

  /** Which of the given current versions are possibly stale (docs/agents.md "Freshness"). */
  async freshness(cmd: FreshnessCommand): Promise<FreshnessResult> {
    const { scopeId, refs } = checkFreshness(cmd)
    if (refs.length === 0) return new Map()
    return this.inReadTransaction((tx) => freshnessOfRefs(tx, scopeId, refs))
  }

  /** Records that the given current versions were re-checked and kept; returns how many. */
  async markFresh(cmd: FreshnessCommand): Promise<number> {
    const { scopeId, refs } = checkFreshness(cmd)
    const at = this.#now().toISOString()
    return this.inWriteTransaction((tx) => markFreshInTx(tx, scopeId, refs, at))
  }

  /** Active memories of one or more scopes, newest first, in one snapshot (no write lock). */
  async recent(cmd: Spi.RecentCommand): Promise<Spi.RecentResult> {
    const q = checkRecent(cmd)
    return this.inReadTransaction((tx) => recentInTx(tx, q))
  }

  /** Erases stored text, keeping what proves history; see {@link redact} (docs/storage.md). */
  async redact(cmd: R.RedactCommand): Promise<R.RedactResult> {
    const erase = (scopeId: string): Promise<R.ErasureReport> => this.eraseRedactedBytes(scopeId)
    return redact({ run: this.#run, now: this.#now, newOperationId, erase }, checkRedact(cmd))
  }

  /**
   * Lets go of erased bytes in the database files after redactions committed; adapters whose
   * files keep deleted bytes override it (SQLite: secure delete, index merge, VACUUM, checkpoint).
   */
  protected eraseRedactedBytes(_scopeId: string): Promise<R.ErasureReport> {
    return Promise.resolve(NO_ERASE_STEP)
  }

  /** One keyset page of scopes with memory counts per state (the console's scope list). */
  async listScopes(cmd: L.ListScopesCommand = {}): Promise<L.ListScopesResult> {
    const q = listing.checkListScopes(cmd)
    return this.inReadTransaction((tx) => listing.listScopesInTx(tx, q))
  }

  /** Sources by id with content, metadata and flush status; `source_not_found` when one is missing. */
  async getSources(cmd: L.GetSourcesCommand): Promise<L.GetSourcesResult> {
    const q = listing.checkGetSources(cmd)
    return this.inReadTransaction((tx) => listing.getSourcesInTx(tx, q))
  }

  /** The scope's journal: cursor, high watermark and one page of sources after `after`. */
  async listSources(cmd: L.ListSourcesCommand): Promise<L.ListSourcesResult> {
    const q = listing.checkListSources(cmd)
    return this.inReadTransaction((tx) => listing.listSourcesInTx(tx, q))
  }

  /** Persists a source (evidence) in the scope journal; idempotent on identical payloads. */
  async captureSource(cmd: Spi.CaptureSourceCommand): Promise<Spi.CaptureSourceResult> {
    const checked = await checkCaptureSliced(cmd)
    const at = this.#now().toISOString()
    return this.inWriteTransaction((tx) => captureInTx(tx, checked, at))
  }

  /**
   * Checks every stored invariant; `ok` is false with a list of every problem found otherwise (a
   * check that cannot finish is one more problem, never a thrown error). Runs in a write
   * transaction because index integrity checks are commands to the index (nothing is written).
   */
  async verify(options: Spi.VerifyOptions = {}): Promise<Spi.VerifyReport> {
    const report = await verifyReport(
      () => this.integrityProblems(options.full === true),
      (work) => this.inCheckTransaction(work),
    )
    this.onVerified(report)
    return report
  }

  /** A transaction of the checks (`verify`, `rebuild`): a damaged database still runs them. */
  protected inCheckTransaction<T>(work: (tx: DialectTx) => Promise<T>): Promise<T> {
    return this.inWriteTransaction(work)
  }

  /** Hears every verify report (the SQL base clears readiness's damage on a clean one). */
  protected onVerified(_report: Spi.VerifyReport): void {}

  /**
   * The database's own integrity check, as problems; none by default. Adapters whose database
   * has one override this (SQLite: `integrity_check`).
   */
  protected integrityProblems(_full: boolean): Promise<string[]> {
    return Promise.resolve([])
  }

  /**
   * Rebuilds projections and indexes from authoritative rows, in one transaction; then, with a
   * ready embedding model, re-embeds every vector (outside it, see {@link reindex}). Without one
   * the vectors stay missing until a `reindex`.
   */
  async rebuild(): Promise<Spi.RebuildReport> {
    const report = await this.inCheckTransaction(async (tx) => {
      const rebuilt = await rebuildInTx(tx)
      await tx.vectors?.bumpEpoch()
      return rebuilt
    })
    if (!this.#vectors.ready) return report
    this.#vectors.markBacklog(true)
    return { ...report, vectors: (await this.reindex()).embedded }
  }

  /**
   * Fills every missing or stale vector of active memories in bounded batches (embedding outside
   * transactions, re-checked inside each batch's write). A model failure stops the run and is
   * reported in `error`.
   * @throws PowerContextError `capability_not_supported` without a ready embedding profile.
   */
  async reindex(options: Spi.ReindexOptions = {}): Promise<Spi.ReindexReport> {
    return reindexVectors(this.#run, this.#vectors, options.batchSize, options.onProgress)
  }

  /** What the database holds for a scope an upgrade would write: an earlier upgrade, or data. */
  async legacyScopeState(scopeId: string): Promise<TargetScopeState> {
    return legacyScopeState(this.#run, scopeId)
  }

  /**
   * Upgrades one scope from the Python reference in one write transaction (docs/upgrade.md);
   * see {@link importLegacyScope}.
   * @throws PowerContextError `invalid_request`, `source_not_found`.
   */
  async importLegacyScope(
    input: LegacyScopeImport,
    options: { readonly dryRun?: boolean } = {},
  ): Promise<LegacyScopeResult> {
    return importLegacyScope(this.#transfer(), input, options)
  }

  /** Every authoritative row as export records, in one snapshot; see {@link exportRows}. */
  async exportRows(
    emit: (record: ExportRecord) => void | Promise<void>,
    now: Date = this.#now(),
    onDamaged?: (row: string, problem: string) => void,
  ): Promise<Readonly<Record<string, number>>> {
    return exportRows(this.#transfer(), emit, now, onDamaged)
  }

  /** Imports an export into this empty database in one transaction; see {@link importRows}. */
  async importRows(
    records: Iterable<ExportRecord> | AsyncIterable<ExportRecord>,
  ): Promise<ImportReport> {
    return importRows(this.#transfer(), records)
  }

  #transfer(): TransferDeps {
    return {
      run: this.#run,
      now: this.#now,
      vectors: this.#vectors,
      name: this.name,
      reindex: () => this.reindex(),
    }
  }
}
