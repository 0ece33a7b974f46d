/**
 * `admin upgrade-from-reference` (docs/upgrade.md): the stop-the-world upgrade of a database
 * written by the Python reference. A preflight reads everything first (schema, every row the
 * upgrade moves, what stays in the archive, what cannot be mapped) and writes nothing; then each
 * scope moves in its own transaction through the backend, which checks every step. A rerun moves
 * nothing twice: upgraded scopes are recorded, and a crash loses at most the scope under way.
 */
import { invalidRequest, PowerContextError } from '../core/errors.js'
import type { LegacyScopeCounts } from '../storage/spi/legacy-types.js'
import type { MemoryBackend } from '../storage/spi/memory-backend.js'
import type { ArchiveCount } from '../storage/upgrade/reference-archive.js'
import { archiveCounts } from '../storage/upgrade/reference-archive.js'
import { referenceFingerprint, referenceScopes } from '../storage/upgrade/reference-rows.js'
import type { ScopePlan } from '../storage/upgrade/reference-scan.js'
import { scanScope } from '../storage/upgrade/reference-scan.js'
import { readReferenceSchema } from '../storage/upgrade/reference-schema.js'
import type { ReferenceSession } from '../storage/upgrade/reference-session.js'
import { referenceSteps } from '../storage/upgrade/reference-steps.js'
import { databaseBackendFor, urlScheme } from './backend-registry.js'

const SCOPE_PAGE = 200

/** Options of an upgrade run. */
export interface UpgradeOptions {
  /** Rehearse every scope's transaction and roll it back: nothing is written. */
  readonly dryRun?: boolean
  /** Old scope id → scope id here, for old ids that are not valid here. */
  readonly mapScopes?: ReadonlyMap<string, string>
  /** Move the scopes that map and leave the blocked ones (listed); default: refuse. */
  readonly skipUnmappable?: boolean
  /** Progress: after each scanned scope, while a scope moves, after each moved scope. */
  readonly onProgress?: (p: UpgradeProgress) => void
}

/** One progress report. */
export interface UpgradeProgress {
  readonly phase: 'preflight' | 'upgrade'
  readonly scope: string
  /** Scopes done in this phase, and of how many (the preflight knows the total only at its end). */
  readonly scopesDone: number
  readonly scopesTotal: number | null
  /** Versions and sources written so far in the whole run (upgrade phase). */
  readonly versions: number
  readonly sources: number
}

/** Totals over scopes. */
export interface UpgradeTotals {
  readonly scopes: number
  readonly sources: number
  readonly entries: number
  readonly versions: number
  readonly inactive: number
  readonly cursors: number
}

/** What an upgrade run found and did. */
export interface UpgradeReport {
  readonly origin: string
  readonly kind: 'sqlite' | 'mysql'
  readonly writeGuard: string
  readonly notes: readonly string[]
  readonly dryRun: boolean
  /**
   * `refused` (unknown schema: nothing read further), `unmappable` (blocked scopes and no
   * `skipUnmappable`: nothing written), `upgraded`, `rehearsed` (dry run), `nothing_to_do`.
   */
  readonly outcome: 'refused' | 'unmappable' | 'upgraded' | 'rehearsed' | 'nothing_to_do'
  /** Why the schema was refused. */
  readonly refused: readonly string[]
  /** What the preflight found to move (ready scopes). */
  readonly toMove: UpgradeTotals
  /** Scopes an earlier run upgraded (unchanged since). */
  readonly alreadyUpgraded: number
  /** Scopes not moved, each with every reason: blocked, changed since its upgrade, or failed. */
  readonly notMoved: readonly ScopePlan[]
  /** What moved (or would, in a dry run). */
  readonly moved: UpgradeTotals & { readonly citations: number }
  /** Rows left in the archive (the old database) with no counterpart here. */
  readonly archive: readonly ArchiveCount[]
  /** Cursors of other consumers (per binding name) left in the archive. */
  readonly archivedCursors: Readonly<Record<string, number>>
  /** Sources whose journal payload here is NFC-normalised (the original bytes are kept). */
  readonly normalisedSources: number
}

const zero = (): {
  scopes: number
  sources: number
  entries: number
  versions: number
  inactive: number
  cursors: number
} => ({ scopes: 0, sources: 0, entries: 0, versions: 0, inactive: 0, cursors: 0 })

async function* allScopes(s: ReferenceSession): AsyncGenerator<string> {
  for (let after = ''; ;) {
    const page = await referenceScopes(s, after, SCOPE_PAGE)
    yield* page
    const last = page.at(-1)
    if (last === undefined || page.length < SCOPE_PAGE) return
    after = last
  }
}

/**
 * Runs the preflight and, unless it refuses, the upgrade of every ready scope.
 * @throws PowerContextError for storage failures of the target (a scope the backend refuses is
 *   reported in `notMoved`, not thrown).
 */
export async function upgradeFromReference(
  backend: MemoryBackend,
  session: ReferenceSession,
  options: UpgradeOptions = {},
): Promise<UpgradeReport> {
  const dryRun = options.dryRun === true
  const base = {
    origin: session.origin,
    kind: session.kind,
    writeGuard: session.writeGuard,
    notes: session.notes,
    dryRun,
  }
  const schema = await readReferenceSchema(session)
  const empty = {
    toMove: zero(),
    alreadyUpgraded: 0,
    notMoved: [],
    moved: { ...zero(), citations: 0 },
    archive: [],
    archivedCursors: {},
    normalisedSources: 0,
  }
  if (schema.problems.length > 0) {
    return { ...base, ...empty, outcome: 'refused', refused: schema.problems }
  }
  const archive = await archiveCounts(session, schema)
  const toMove = zero()
  const notMoved: ScopePlan[] = []
  const skip = new Set<string>()
  const archivedCursors: Record<string, number> = {}
  let alreadyUpgraded = 0
  let normalisedSources = 0
  let scanned = 0
  const target = (id: string) => backend.legacyScopeState(id)
  for await (const legacyId of allScopes(session)) {
    const plan = await scanScope(session, legacyId, options.mapScopes?.get(legacyId), target)
    scanned += 1
    for (const b of plan.archivedCursors) archivedCursors[b] = (archivedCursors[b] ?? 0) + 1
    if (plan.status === 'ready') {
      toMove.scopes += 1
      toMove.sources += plan.counts.sources
      toMove.entries += plan.counts.entries
      toMove.versions += plan.counts.versions
      toMove.inactive += plan.counts.inactive
      toMove.cursors += plan.counts.cursor === null ? 0 : 1
      normalisedSources += plan.normalisedSources
    } else {
      skip.add(legacyId)
      if (plan.status === 'done') alreadyUpgraded += 1
      else notMoved.push(plan)
    }
    options.onProgress?.({
      phase: 'preflight',
      scope: legacyId,
      scopesDone: scanned,
      scopesTotal: null,
      versions: 0,
      sources: 0,
    })
  }
  const preflight = { archive, archivedCursors, normalisedSources, toMove, alreadyUpgraded }
  const blocked = notMoved.some((p) => p.status === 'blocked')
  if (blocked && options.skipUnmappable !== true) {
    return { ...base, ...empty, ...preflight, outcome: 'unmappable', refused: [], notMoved }
  }
  if (toMove.scopes === 0) {
    return { ...base, ...empty, ...preflight, outcome: 'nothing_to_do', refused: [], notMoved }
  }
  const moved = { ...zero(), citations: 0 }
  let done = 0
  for await (const legacyId of allScopes(session)) {
    if (skip.has(legacyId)) continue
    const scopeId = options.mapScopes?.get(legacyId) ?? legacyId
    const before = { versions: moved.versions, sources: moved.sources }
    const counts = await moveScope(backend, session, legacyId, scopeId, dryRun, (p) =>
      options.onProgress?.({
        phase: 'upgrade',
        scope: legacyId,
        scopesDone: done,
        scopesTotal: toMove.scopes,
        versions: before.versions + p.versions,
        sources: before.sources + p.sources,
      }),
    ).catch((err: unknown) => {
      if (!(err instanceof PowerContextError) || err.code === 'internal_error') throw err
      notMoved.push(failedPlan(legacyId, scopeId, err))
      return undefined
    })
    done += 1
    if (counts === undefined) continue
    moved.scopes += 1
    moved.sources += counts.sources
    moved.entries += counts.memories
    moved.versions += counts.versions
    moved.inactive += counts.forgotten
    moved.cursors += counts.cursor === null ? 0 : 1
    moved.citations += counts.citations
  }
  if (!dryRun && moved.scopes > 0 && backend.vectorStatus().state === 'ready') {
    await backend.reindex()
  }
  return {
    ...base,
    ...preflight,
    outcome: dryRun ? 'rehearsed' : 'upgraded',
    refused: [],
    notMoved,
    moved,
  }
}

async function moveScope(
  backend: MemoryBackend,
  session: ReferenceSession,
  legacyScopeId: string,
  scopeId: string,
  dryRun: boolean,
  onProgress: (p: { versions: number; sources: number }) => void,
): Promise<LegacyScopeCounts | undefined> {
  const result = await backend.importLegacyScope(
    {
      scopeId,
      legacyScopeId,
      origin: session.origin,
      fingerprint: await referenceFingerprint(session, legacyScopeId),
      steps: () => referenceSteps(session, legacyScopeId),
      onProgress,
    },
    { dryRun },
  )
  return result.status === 'upgraded' ? result.counts : undefined
}

function failedPlan(legacyScopeId: string, scopeId: string, err: PowerContextError): ScopePlan {
  return {
    legacyScopeId,
    scopeId,
    status: 'blocked',
    problems: [`the upgrade refused it: ${err.message}`],
    counts: { sources: 0, entries: 0, versions: 0, inactive: 0, cursor: null },
    archivedCursors: [],
    normalisedSources: 0,
    fingerprint: '',
  }
}

/**
 * Opens the reference database: a URL (`scheme://…`, its backend chosen in `backend-registry.ts`
 * and loaded only then) or a SQLite file. `targetFile` is this runtime's own SQLite file, which
 * may be the same file (in-place upgrade).
 * @throws PowerContextError `invalid_request` for a URL whose backend cannot be a reference source.
 */
export async function openReferenceSession(
  from: string,
  targetFile: string | undefined,
): Promise<ReferenceSession> {
  if (urlScheme(from) !== undefined) {
    const backend = databaseBackendFor(from)
    if (backend.openReference === undefined)
      throw invalidRequest('from', `a ${backend.name} database cannot be a reference source`)
    return backend.openReference(from)
  }
  const { openSqliteReference } = await import('../storage/sqlite/reference-sqlite.js')
  return openSqliteReference(from, targetFile)
}
