/**
 * Freshness of code-anchored memories (docs/agents.md "Freshness"): the path-change projection
 * written beside every captured source and rebuilt from the journal, and the lookup that marks a
 * memory possibly stale when a commit captured after its newest version (or after its last
 * freshness check) touched a path its evidence names.
 */
import { checkArtifactRef } from '../../../core/command-rules.js'
import { invalidRequest } from '../../../core/errors.js'
import {
  MAX_STALE_COMMITS,
  pathKey,
  sourceAnchor,
  type StaleCommit,
  type StaleMark,
} from '../../../core/freshness.js'
import { checkScopeId } from '../../../core/ids.js'
import type { ArtifactRef } from '../../../core/memory-model.js'
import { isActive } from '../../../core/memory-state.js'
import type { DialectTx, SourceRow } from '../../spi/dialect-tx.js'
import type { FreshnessCommand, SourcePathRow, StaleMemory } from '../../spi/freshness-types.js'
import type { RankedSearchResult } from '../../spi/search-types.js'
import { viewOf } from '../version-codec.js'

/** The path rows of one stored source (none for a source that anchors nothing). */
export function sourcePathRows(row: SourceRow): SourcePathRow[] {
  let anchor
  try {
    const p = JSON.parse(row.payload) as { content: string; media_type: string }
    anchor = sourceAnchor({ mediaType: p.media_type, content: p.content })
  } catch {
    // An erased or damaged payload anchors nothing.
    return []
  }
  if (anchor === undefined) return []
  return anchor.paths.map((path) => ({
    scopeId: row.scopeId,
    position: row.position,
    sourceId: row.sourceId,
    pathKey: pathKey(path),
    path,
    kind: anchor.kind,
    commitId: anchor.commit,
    capturedAt: row.createdAt,
  }))
}

/** Inserts a source and, in the same transaction, the paths it names. */
export async function insertSourceProjected(tx: DialectTx, row: SourceRow): Promise<void> {
  await tx.insertSource(row)
  const paths = sourcePathRows(row)
  if (paths.length > 0) await tx.freshness.putSourcePaths(paths)
}

const REBUILD_PAGE = 500

/** Rebuilds the path-change projection from every scope's journal, in pages; returns the rows. */
export async function rebuildSourcePathsInTx(tx: DialectTx): Promise<number> {
  await tx.freshness.clearSourcePaths()
  let rows = 0
  let after = ''
  for (;;) {
    const scopes = await tx.pages.scopes(after, REBUILD_PAGE)
    for (const scopeId of scopes) {
      const high = await tx.journal.highWatermark(scopeId)
      for (let from = 0; from < high; from += REBUILD_PAGE) {
        for (const source of await tx.journal.listSources(scopeId, from, from + REBUILD_PAGE)) {
          const paths = sourcePathRows(source)
          await tx.freshness.putSourcePaths(paths)
          rows += paths.length
        }
      }
    }
    if (scopes.length < REBUILD_PAGE) return rows
    after = scopes[scopes.length - 1] ?? after
  }
}

const sourceIdsOf = (v: { readonly sourcesJson: string }): string[] =>
  (JSON.parse(v.sourcesJson) as { source_id: string }[]).map((s) => s.source_id)

/** Rows read per lookup at most (beyond, the newest changes of the anchored paths). */
const CHANGED_ROWS_MAX = 4096

/** A later change of an anchored path. */
interface ChangeRow {
  readonly position: number
  readonly sourceId: string
  readonly path: string
  readonly commitId: string | null
  readonly capturedAt: string
}

/** A current version citing sources: what it cites, when it was written, its last check. */
interface Cited {
  readonly memoryId: string
  readonly version: number
  readonly createdAt: string
  readonly evidence: ReadonlySet<string>
}

/** An anchored memory: the commits its anchors name, its evidence, the time it is fresh from. */
interface AnchoredMemory extends Cited {
  readonly anchoredCommits: ReadonlySet<string>
  readonly since: string
}

/** Newest capture first. */
const newestFirst = (a: ChangeRow, b: ChangeRow): number =>
  a.capturedAt === b.capturedAt ? b.position - a.position : a.capturedAt < b.capturedAt ? 1 : -1

/** The stale mark of one memory from its anchors' later changes (newest first), if any applies. */
function markOf(a: AnchoredMemory, changed: readonly ChangeRow[]): StaleMark | undefined {
  const byCommit = new Map<string, { paths: string[]; capturedAt: string }>()
  for (const row of changed) {
    const commit = row.commitId
    if (row.capturedAt <= a.since || commit === null) continue
    if (a.anchoredCommits.has(commit) || a.evidence.has(row.sourceId)) continue
    const entry = byCommit.get(commit)
    if (entry === undefined && byCommit.size >= MAX_STALE_COMMITS) continue
    if (entry === undefined) byCommit.set(commit, { paths: [row.path], capturedAt: row.capturedAt })
    else if (!entry.paths.includes(row.path)) entry.paths.push(row.path)
  }
  if (byCommit.size === 0) return undefined
  const commits: StaleCommit[] = [...byCommit.entries()].map(([commit, e]) => ({
    commit,
    paths: e.paths.sort(),
    capturedAt: e.capturedAt,
  }))
  return { commits }
}

/** The anchored ones of the cited memories (by their anchors' commits), with their last checks. */
async function anchoredOf(
  tx: DialectTx,
  cited: readonly Cited[],
  commitsOf: ReadonlyMap<string, readonly (string | null)[]>,
): Promise<AnchoredMemory[]> {
  const own = cited.filter((c) => [...c.evidence].some((id) => commitsOf.has(id)))
  if (own.length === 0) return []
  const checks = new Map(
    (await tx.freshness.checksOf(own.map((c) => c.memoryId))).map((r) => [r.memoryId, r]),
  )
  return own.map((c) => {
    const check = checks.get(c.memoryId)
    const commits = [...c.evidence].flatMap((id) => commitsOf.get(id) ?? [])
    return {
      ...c,
      anchoredCommits: new Set(commits.filter((commit) => commit !== null)),
      since:
        check !== undefined && check.version === c.version && check.checkedAt > c.createdAt
          ? check.checkedAt
          : c.createdAt,
    }
  })
}

/** Groups rows by a key, keeping their order. */
function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const row of rows) {
    const group = out.get(key(row))
    if (group === undefined) out.set(key(row), [row])
    else group.push(row)
  }
  return out
}

/**
 * The stale marks of the given memories' current versions in one scope (of exactly the given
 * revision, when `revisions` names one): anchors are the paths of the version's Git change and
 * task-outcome evidence; a Git change captured after the version was written (or after a later
 * check found it still true) that touched one of them marks it. Past the versions, one indexed
 * read joins the cited sources' paths to the later changes of the same paths, batched over all
 * the memories; only when a change is found are the last checks read. Memories citing nothing
 * cost no read, memories without anchors are never marked. Only when more than
 * {@link CHANGED_ROWS_MAX} rows would come back are the newest changes of the paths read instead.
 */
export async function freshnessInTx(
  tx: DialectTx,
  scopeId: string,
  memoryIds: readonly string[],
  revisions?: ReadonlyMap<string, number>,
): Promise<Map<string, StaleMark>> {
  const marks = new Map<string, StaleMark>()
  const cited: Cited[] = (await tx.freshness.citedVersions(memoryIds)).flatMap((c) => {
    if (c.scopeId !== scopeId || !isActive(c.state)) return []
    if ((revisions?.get(c.memoryId) ?? c.version) !== c.version) return []
    const evidence = new Set(sourceIdsOf(c))
    if (evidence.size === 0) return []
    return [{ memoryId: c.memoryId, version: c.version, createdAt: c.createdAt, evidence }]
  })
  if (cited.length === 0) return marks
  const ids = [...new Set(cited.flatMap((c) => [...c.evidence]))]
  const earliest = cited.map((c) => c.createdAt).sort()[0] as string
  const rows = await tx.freshness.anchorsWithChanges(scopeId, ids, earliest, CHANGED_ROWS_MAX + 1)
  if (rows.length > CHANGED_ROWS_MAX) return marksByPaths(tx, scopeId, cited, ids)
  const changes = rows.flatMap((r) =>
    r.position === null || r.sourceId === null || r.path === null || r.capturedAt === null
      ? []
      : [
          {
            ...r,
            position: r.position,
            sourceId: r.sourceId,
            path: r.path,
            capturedAt: r.capturedAt,
          },
        ],
  )
  if (changes.length === 0) return marks
  const commitsOf = new Map(
    [...groupBy(rows, (r) => r.anchorId)].map(([id, own]) => [id, own.map((r) => r.anchorCommit)]),
  )
  changes.sort(newestFirst)
  for (const a of await anchoredOf(tx, cited, commitsOf)) {
    const mark = markOf(
      a,
      changes.filter((row) => a.evidence.has(row.anchorId)),
    )
    if (mark !== undefined) marks.set(a.memoryId, mark)
  }
  return marks
}

/** The marks from the newest {@link CHANGED_ROWS_MAX} later changes of the anchored paths. */
async function marksByPaths(
  tx: DialectTx,
  scopeId: string,
  cited: readonly Cited[],
  ids: readonly string[],
): Promise<Map<string, StaleMark>> {
  const marks = new Map<string, StaleMark>()
  const anchors = await tx.freshness.anchorsOf(scopeId, ids)
  const bySource = groupBy(anchors, (r) => r.sourceId)
  const commitsOf = new Map([...bySource].map(([id, own]) => [id, own.map((r) => r.commitId)]))
  const anchored = await anchoredOf(tx, cited, commitsOf)
  if (anchored.length === 0) return marks
  const keysOf = (a: AnchoredMemory) =>
    new Set([...a.evidence].flatMap((id) => (bySource.get(id) ?? []).map((r) => r.pathKey)))
  const keys = [...new Set(anchored.flatMap((a) => [...keysOf(a)]))]
  const after = anchored.map((a) => a.since).sort()[0] as string
  const changed = await tx.freshness.changedAfter(scopeId, keys, after, CHANGED_ROWS_MAX)
  for (const a of anchored) {
    const own = keysOf(a)
    const mark = markOf(
      a,
      changed.filter((row) => own.has(row.pathKey)),
    )
    if (mark !== undefined) marks.set(a.memoryId, mark)
  }
  return marks
}

/** Most refs one freshness lookup or check takes. */
export const FRESHNESS_REFS_MAX = 256

/** The checked scope and memory refs of a freshness command. */
export function checkFreshness(cmd: FreshnessCommand): {
  scopeId: string
  refs: ArtifactRef[]
} {
  const scopeId = checkScopeId(cmd.scopeId)
  const refs: unknown = cmd.refs
  if (!Array.isArray(refs) || refs.length > FRESHNESS_REFS_MAX)
    throw invalidRequest('refs', `must hold at most ${FRESHNESS_REFS_MAX} memory refs`)
  return { scopeId, refs: refs.map((r: unknown, i) => checkArtifactRef(r, `refs[${i}]`)) }
}

/** The marks of exactly the given versions: a ref that is not the current version is not marked. */
export function freshnessOfRefs(
  tx: DialectTx,
  scopeId: string,
  refs: readonly ArtifactRef[],
): Promise<Map<string, StaleMark>> {
  const ids = refs.map((r) => r.artifactId)
  return freshnessInTx(tx, scopeId, ids, new Map(refs.map((r) => [r.artifactId, r.revision])))
}

/**
 * Records that the given current versions were found still true at `at` (a flush's re-check kept
 * them): commits captured up to then no longer mark them. A ref that is not current is ignored.
 */
export async function markFreshInTx(
  tx: DialectTx,
  scopeId: string,
  refs: readonly ArtifactRef[],
  at: string,
): Promise<number> {
  const current = await tx.loadCurrent(refs.map((r) => r.artifactId))
  let marked = 0
  for (const ref of refs) {
    const c = current.get(ref.artifactId)
    if (c === undefined || c.row.scopeId !== scopeId || c.version.version !== ref.revision) continue
    await tx.freshness.putCheck({
      memoryId: ref.artifactId,
      scopeId,
      version: ref.revision,
      checkedAt: at,
    })
    marked += 1
  }
  return marked
}

/** Sources and memories looked at per re-check lookup at most. */
const ANCHORED_SOURCES_MAX = 200

/**
 * The possibly stale memories anchored to any of `paths` (a flush's re-check): the sources naming
 * them, the active memories citing those sources, and of those the ones a later commit marks.
 */
export async function staleAnchoredInTx(
  tx: DialectTx,
  cmd: { readonly scopeId: string; readonly paths: readonly string[]; readonly limit: number },
): Promise<StaleMemory[]> {
  const keys = [...new Set(cmd.paths.map(pathKey))]
  const sources = await tx.freshness.sourcesNaming(cmd.scopeId, keys, ANCHORED_SOURCES_MAX)
  const ids: string[] = []
  for (let i = 0; i < sources.length && ids.length < cmd.limit; i += 50) {
    const page = await tx.freshness.memoriesCiting(cmd.scopeId, sources.slice(i, i + 50), cmd.limit)
    for (const id of page) if (!ids.includes(id) && ids.length < cmd.limit) ids.push(id)
  }
  const marks = await freshnessInTx(tx, cmd.scopeId, ids)
  const current = await tx.loadCurrent([...marks.keys()])
  const out: StaleMemory[] = []
  for (const [id, mark] of marks) {
    const c = current.get(id)
    if (c !== undefined) out.push({ memory: viewOf(c.version, c.row), mark })
  }
  return out
}

/**
 * Search hits with the stale mark of each possibly stale one of the `first` hits, read in the
 * search's transaction.
 */
export async function markStaleHits(
  tx: DialectTx,
  scopeId: string,
  result: RankedSearchResult,
  first: number,
): Promise<RankedSearchResult> {
  const looked = result.hits.slice(0, Math.max(0, first))
  if (looked.length === 0) return result
  const marks = await freshnessOfRefs(
    tx,
    scopeId,
    looked.map((h) => h.memoryRef),
  )
  if (marks.size === 0) return result
  const hits = result.hits.map((h) => {
    const stale = marks.get(h.memoryRef.artifactId)
    return stale === undefined ? h : { ...h, stale }
  })
  return { ...result, hits }
}
