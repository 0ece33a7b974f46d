/**
 * The upgrade's preflight (docs/upgrade.md): reads every row the upgrade would move, without
 * writing, and reports per scope what moves, what has no counterpart (left in the archive) and
 * what cannot be mapped — each such item named, so that nothing is dropped or rewritten silently.
 * A scope with an unmappable item is blocked as a whole: moving part of it would drop the rest.
 */
import { checkScopeId, checkSourceId } from '../../core/ids.js'
import { secretFree } from '../../core/secret-rules.js'
import { normalizeKind, normalizeReason, normalizeText } from '../../core/text-rules.js'
import { checkCapture } from '../engine/ops/capture.js'
import type { LegacyUpgradeRow } from '../spi/legacy-tx.js'
import type { LegacyScopeCounts, TargetScopeState } from '../spi/legacy-types.js'
import { decodeCursor, decodeMemoryContent, LegacyDecodeError } from './reference-payloads.js'
import {
  decodeSourceRow,
  decodeVersionRow,
  MEMORY_CURSOR_BINDING,
  missingReferenceSources,
  referenceCollections,
  referenceCursors,
  referenceFingerprint,
  referenceRevisions,
  referenceSources,
  referenceVersions,
} from './reference-rows.js'
import type { ReferenceSession } from './reference-session.js'

/** Problems listed per scope before the list is cut (the count says how many more). */
const MAX_LISTED = 20
const SOURCE_CHECK_BATCH = 500

/** The preflight of one scope. */
export interface ScopePlan {
  readonly legacyScopeId: string
  /** The scope id here, or null when the old one is not valid here and was not mapped. */
  readonly scopeId: string | null
  /**
   * `ready` (moves), `blocked` (has unmappable items, stays), `done` (upgraded before, unchanged
   * since) or `changed` (upgraded before, but the reference wrote into it since: not moved again).
   */
  readonly status: 'ready' | 'blocked' | 'done' | 'changed'
  /** Why the scope is blocked: every unmappable item (the first 20, then a count). */
  readonly problems: readonly string[]
  readonly counts: {
    readonly sources: number
    readonly entries: number
    readonly versions: number
    readonly inactive: number
    readonly cursor: number | null
  }
  /** Cursors of other consumers (experience, handoff): no counterpart, left in the archive. */
  readonly archivedCursors: readonly string[]
  /** Sources whose journal payload here differs from the original in more than key order. */
  readonly normalisedSources: number
  readonly fingerprint: string
}

class Problems {
  readonly list: string[] = []
  #more = 0
  add(p: string): void {
    if (this.list.length < MAX_LISTED) this.list.push(p)
    else this.#more += 1
  }
  done(): string[] {
    return this.#more === 0 ? this.list : [...this.list, `… and ${this.#more} more`]
  }
  get empty(): boolean {
    return this.list.length === 0
  }
}

function problemOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** The value passes `rule` unchanged; else a problem naming it. */
function unchanged<T>(p: Problems, what: string, value: T, rule: (v: T) => T): void {
  try {
    if (rule(value) !== value) p.add(`${what} would be stored differently here`)
  } catch (err) {
    p.add(`${what} is not accepted here: ${problemOf(err)}`)
  }
}

function countsOf(u: LegacyUpgradeRow): ScopePlan['counts'] {
  const c = JSON.parse(u.countsJson) as LegacyScopeCounts
  return {
    sources: c.sources,
    entries: c.memories,
    versions: c.versions,
    inactive: c.forgotten,
    cursor: c.cursor,
  }
}

/** Scans one scope of the reference. */
export async function scanScope(
  s: ReferenceSession,
  legacyScopeId: string,
  mappedTo: string | undefined,
  target: (scopeId: string) => Promise<TargetScopeState>,
): Promise<ScopePlan> {
  const p = new Problems()
  const fingerprint = await referenceFingerprint(s, legacyScopeId)
  let scopeId: string | null = mappedTo ?? legacyScopeId
  try {
    checkScopeId(scopeId)
  } catch (err) {
    p.add(
      mappedTo === undefined
        ? `scope id ${JSON.stringify(legacyScopeId)} is not valid here (${problemOf(err)}): map it with --map-scope OLD=NEW`
        : `--map-scope target ${JSON.stringify(mappedTo)} is not valid (${problemOf(err)})`,
    )
    scopeId = null
  }
  if (scopeId !== null) {
    const state = await target(scopeId)
    if (state.upgrade !== undefined) {
      const status = state.upgrade.fingerprint === fingerprint ? 'done' : 'changed'
      return {
        legacyScopeId,
        scopeId,
        status,
        problems:
          status === 'done'
            ? []
            : [
                'the reference wrote into this scope after it was upgraded; those writes do not move',
              ],
        counts: countsOf(state.upgrade),
        archivedCursors: [],
        normalisedSources: 0,
        fingerprint,
      }
    }
    if (state.holdsData) p.add(`scope ${scopeId} already holds memories or sources here`)
  }
  const sources = await scanSources(s, legacyScopeId, p)
  const versions = await scanVersions(s, legacyScopeId, p)
  const heads = await scanCollections(s, legacyScopeId, p)
  const cursors = await scanCursors(s, legacyScopeId, sources.last, p)
  return {
    legacyScopeId,
    scopeId,
    status: p.empty ? 'ready' : 'blocked',
    problems: p.done(),
    counts: {
      sources: sources.count,
      entries: heads.entries,
      versions,
      inactive: heads.inactive,
      cursor: cursors.cursor,
    },
    archivedCursors: cursors.archived,
    normalisedSources: sources.normalised,
    fingerprint,
  }
}

async function scanSources(s: ReferenceSession, scopeId: string, p: Problems) {
  let count = 0
  let last = 0
  let normalised = 0
  for await (const row of referenceSources(s, scopeId)) {
    count += 1
    if (row.position !== last + 1)
      p.add(
        `source ${row.sourceId} is at position ${row.position}, after ${last}: the journal has a gap`,
      )
    last = row.position
    try {
      const source = decodeSourceRow(row)
      unchanged(p, `source id ${JSON.stringify(row.sourceId)}`, row.sourceId, checkSourceId)
      const checked = checkCapture({
        scopeId: 'preflight',
        sourceId: 'preflight',
        content: source.content,
        metadata: source.metadata,
      })
      const payload = JSON.parse(checked.payload) as { content: string; metadata: unknown }
      // Canonical JSON sorts keys (the original bytes are kept); any other difference is NFC.
      if (payload.content !== source.content || !sameJson(payload.metadata, source.metadata)) {
        normalised += 1
      }
    } catch (err) {
      const problem = problemOf(err)
      p.add(problem.includes(row.sourceId) ? problem : `source ${row.sourceId}: ${problem}`)
    }
  }
  return { count, last, normalised }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as never)[k], (b as never)[k]))
}

async function scanVersions(s: ReferenceSession, scopeId: string, p: Problems): Promise<number> {
  let count = 0
  let prev: { key: string; version: number; id: string } | undefined
  let cited = new Set<string>()
  const checkCited = async (): Promise<void> => {
    for (const id of await missingReferenceSources(s, scopeId, [...cited])) {
      p.add(`an entry version cites the source ${id}, which is not in the scope`)
    }
    cited = new Set()
  }
  for await (const row of referenceVersions(s, scopeId)) {
    count += 1
    const key = `${String(row['memory_artifact_id'])}\u0000${String(row['entry_id'])}`
    const version = Number(row['version'])
    const previous = row['previous_version_id'] ?? null
    const at = `entry ${String(row['entry_id'])} version ${version}`
    const chained =
      prev?.key === key
        ? version === prev.version + 1 && previous === prev.id
        : version === 1 && previous === null
    if (!chained) p.add(`${at} does not follow the entry's previous version`)
    prev = { key, version, id: String(row['entry_version_id']) }
    try {
      const v = decodeVersionRow(row)
      unchanged(p, `${at} kind`, v.kind, normalizeKind)
      unchanged(p, `${at} text`, v.text, (t) => secretFree('text', normalizeText(t)))
      for (const id of v.sourceIds) {
        unchanged(p, `${at} source id ${JSON.stringify(id)}`, id, checkSourceId)
        cited.add(id)
      }
    } catch (err) {
      p.add(problemOf(err))
    }
    if (cited.size >= SOURCE_CHECK_BATCH) await checkCited()
  }
  await checkCited()
  return count
}

async function scanCollections(s: ReferenceSession, scopeId: string, p: Problems) {
  let entries = 0
  let inactive = 0
  for (const { artifactId, head } of await referenceCollections(s, scopeId)) {
    let seen = 0
    try {
      for await (const { revision, content } of referenceRevisions(s, scopeId, artifactId, head)) {
        seen = revision
        const decoded = decodeMemoryContent(content, `collection ${artifactId}@${revision}`)
        for (const c of decoded.changes) {
          unchanged(
            p,
            `collection ${artifactId}@${revision} reason of ${c.entryId}`,
            c.reason,
            (r) => secretFree('reason', normalizeReason(r)),
          )
        }
        if (revision === head) {
          entries += decoded.entries.length
          inactive += decoded.entries.filter((e) => e.state === 'inactive').length
        }
      }
    } catch (err) {
      p.add(problemOf(err))
    }
    if (seen !== head) p.add(`collection ${artifactId} lacks revisions up to its head ${head}`)
  }
  return { entries, inactive }
}

async function scanCursors(s: ReferenceSession, scopeId: string, last: number, p: Problems) {
  let cursor: number | null = null
  const archived: string[] = []
  for (const c of await referenceCursors(s, scopeId)) {
    if (c.binding !== MEMORY_CURSOR_BINDING) {
      archived.push(c.binding)
      continue
    }
    try {
      cursor = decodeCursor(c.cursor, `cursor ${c.binding}`)
      if (cursor > last) p.add(`the memory cursor ${cursor} is beyond the last source ${last}`)
    } catch (err) {
      if (!(err instanceof LegacyDecodeError)) throw err
      p.add(err.message)
    }
  }
  return { cursor, archived }
}
