/**
 * Reads of the Python reference's tables (docs/upgrade.md), one scope at a time, in keyset pages
 * (memory stays bounded whatever the size), and the decoding of their rows. The preflight and
 * the upgrade read through the same functions, so what the preflight counts is what moves.
 */
import { createHash } from 'node:crypto'

import { canonicalJson } from '../../core/canonical.js'
import { checkMemoryId } from '../../core/ids.js'
import type { LegacyEntryVersion } from '../spi/legacy-types.js'
import type { ReferenceContentSource } from './reference-payloads.js'
import {
  blobBytes,
  decodeArtifactRefs,
  decodeContentSource,
  decodeSourceRefs,
  LegacyDecodeError,
  referenceEntryHash,
} from './reference-payloads.js'
import type { ReferenceSession } from './reference-session.js'
import { placeholders } from './reference-session.js'

/** The binding name of the reference's memory flush cursor. */
export const MEMORY_CURSOR_BINDING = 'memory-source-window'

const SOURCE_PAGE = 200
const VERSION_PAGE = 500
const REVISION_PAGE = 4
const IN_BATCH = 200

/** Scope ids of the reference (journal, sources, collections, cursors, entries), after `after`. */
export async function referenceScopes(
  s: ReferenceSession,
  after: string,
  limit: number,
): Promise<string[]> {
  const rows = await s.all<{ scope_id: string }>(
    `SELECT scope_id FROM (
       SELECT scope_id FROM pc_source_journal_heads
       UNION SELECT scope_id FROM pc_sources
       UNION SELECT scope_id FROM pc_artifact_heads WHERE family = 'memory'
       UNION SELECT scope_id FROM pc_source_cursors
       UNION SELECT scope_id FROM pc_memory_entry_versions
     ) u WHERE scope_id > ? ORDER BY scope_id LIMIT ?`,
    [after, limit],
  )
  return rows.map((r) => String(r.scope_id))
}

/** One stored source row. */
export interface SourceRowRef {
  readonly sourceType: string
  readonly sourceId: string
  readonly position: number
  readonly payload: Uint8Array
}

/** The scope's sources in journal order, page by page. */
export async function* referenceSources(
  s: ReferenceSession,
  scopeId: string,
): AsyncGenerator<SourceRowRef> {
  for (let after = 0; ;) {
    const rows = await s.all<Record<string, unknown>>(
      `SELECT source_type, source_id, payload, journal_position FROM pc_sources
       WHERE scope_id = ? AND journal_position > ? ORDER BY journal_position LIMIT ?`,
      [scopeId, after, SOURCE_PAGE],
    )
    for (const r of rows) {
      const row = {
        sourceType: String(r['source_type']),
        sourceId: String(r['source_id']),
        position: Number(r['journal_position']),
        payload: blobBytes(r['payload'], `source ${String(r['source_id'])} payload`),
      }
      yield row
      after = row.position
    }
    if (rows.length < SOURCE_PAGE) return
  }
}

/** Decodes a source row; only `content` sources have a counterpart here. */
export function decodeSourceRow(row: SourceRowRef): ReferenceContentSource {
  if (row.sourceType !== 'content') {
    throw new LegacyDecodeError(
      `source ${row.sourceId} at ${row.position} is of type ${row.sourceType}, which has no counterpart here`,
    )
  }
  return decodeContentSource(row.payload, row.sourceId)
}

/** The scope's collection memories (family `memory`) and their head revisions. */
export async function referenceCollections(
  s: ReferenceSession,
  scopeId: string,
): Promise<{ artifactId: string; head: number }[]> {
  const rows = await s.all<{ artifact_id: string; revision: number }>(
    `SELECT artifact_id, revision FROM pc_artifact_heads WHERE scope_id = ? AND family = 'memory'
     ORDER BY artifact_id`,
    [scopeId],
  )
  return rows.map((r) => ({ artifactId: String(r.artifact_id), head: Number(r.revision) }))
}

/** A collection's revisions 1…head in order (each one's content bytes), page by page. */
export async function* referenceRevisions(
  s: ReferenceSession,
  scopeId: string,
  artifactId: string,
  head: number,
): AsyncGenerator<{ revision: number; content: Uint8Array }> {
  for (let after = 0; after < head;) {
    const rows = await s.all<{ revision: number; content: unknown }>(
      `SELECT revision, content FROM pc_artifacts WHERE scope_id = ? AND family = 'memory'
       AND artifact_id = ? AND revision > ? AND revision <= ? ORDER BY revision LIMIT ?`,
      [scopeId, artifactId, after, head, REVISION_PAGE],
    )
    if (rows.length === 0) break
    for (const r of rows) {
      const revision = Number(r.revision)
      if (revision !== after + 1) {
        throw new LegacyDecodeError(`collection ${artifactId} has no revision ${after + 1}`)
      }
      yield { revision, content: blobBytes(r.content, `collection ${artifactId}@${revision}`) }
      after = revision
    }
  }
}

/** One stored entry version row (raw columns). */
export type VersionRowRef = Record<string, unknown>

const VERSION_COLUMNS = `family, memory_artifact_id, entry_id, entry_version_id, version,
  previous_version_id, kind, text, source_refs, artifact_refs, entry_content_hash, created_in_revision`

/** Entry versions of a collection by id (IN lists of at most 200). */
export async function referenceVersionsById(
  s: ReferenceSession,
  scopeId: string,
  artifactId: string,
  ids: readonly string[],
): Promise<Map<string, VersionRowRef>> {
  const out = new Map<string, VersionRowRef>()
  for (let i = 0; i < ids.length; i += IN_BATCH) {
    const batch = ids.slice(i, i + IN_BATCH)
    const rows = await s.all<VersionRowRef>(
      `SELECT ${VERSION_COLUMNS} FROM pc_memory_entry_versions WHERE scope_id = ?
       AND memory_artifact_id = ? AND entry_version_id IN (${placeholders(batch.length)})`,
      [scopeId, artifactId, ...batch],
    )
    for (const r of rows) out.set(String(r['entry_version_id']), r)
  }
  return out
}

/** Every entry version of the scope by (collection, entry, version), page by page. */
export async function* referenceVersions(
  s: ReferenceSession,
  scopeId: string,
): AsyncGenerator<VersionRowRef> {
  let key: [string, string, number] = ['', '', 0]
  for (;;) {
    const rows = await s.all<VersionRowRef>(
      `SELECT ${VERSION_COLUMNS} FROM pc_memory_entry_versions WHERE scope_id = ?
       AND (memory_artifact_id > ? OR (memory_artifact_id = ? AND (entry_id > ?
         OR (entry_id = ? AND version > ?))))
       ORDER BY memory_artifact_id, entry_id, version LIMIT ?`,
      [scopeId, key[0], key[0], key[1], key[1], key[2], VERSION_PAGE],
    )
    for (const r of rows) {
      yield r
      key = [String(r['memory_artifact_id']), String(r['entry_id']), Number(r['version'])]
    }
    if (rows.length < VERSION_PAGE) return
  }
}

/** Entry versions a collection stores (each must be reached by the replay). */
export async function referenceVersionCount(
  s: ReferenceSession,
  scopeId: string,
  artifactId: string,
): Promise<number> {
  const rows = await s.all<{ n: number }>(
    `SELECT COUNT(*) AS n FROM pc_memory_entry_versions WHERE scope_id = ? AND memory_artifact_id = ?`,
    [scopeId, artifactId],
  )
  return Number(rows[0]?.n ?? 0)
}

/** A decoded entry version, with the ids of the sources it cites. */
export interface DecodedVersion extends LegacyEntryVersion {
  readonly memoryArtifactId: string
  readonly entryId: string
}

/**
 * Decodes an entry version row: ids printable ASCII (an old citation must stay addressable),
 * refs only to `content` sources and none to artifacts (no atomic counterpart), and the stored
 * hash equal to the reference's own hash of the row.
 */
export function decodeVersionRow(r: VersionRowRef): DecodedVersion {
  const entryId = String(r['entry_id'])
  const entryVersionId = String(r['entry_version_id'])
  const at = `entry ${entryId} version ${String(r['version'])}`
  if (r['family'] !== 'memory')
    throw new LegacyDecodeError(`${at} is of family ${String(r['family'])}`)
  for (const [field, id] of [
    ['entry id', entryId],
    ['entry version id', entryVersionId],
    ['collection id', String(r['memory_artifact_id'])],
  ] as const) {
    try {
      checkMemoryId(id)
    } catch {
      throw new LegacyDecodeError(
        `${at}: its ${field} is not printable ASCII of at most 128 characters`,
      )
    }
  }
  const sourceRefs = decodeSourceRefs(
    blobBytes(r['source_refs'], `${at} source_refs`),
    `${at} source_refs`,
  )
  const artifactRefs = decodeArtifactRefs(
    blobBytes(r['artifact_refs'], `${at} artifact_refs`),
    `${at} artifact_refs`,
  )
  const kind = String(r['kind'])
  const text = String(r['text'])
  if (referenceEntryHash({ kind, text, sourceRefs, artifactRefs }) !== r['entry_content_hash']) {
    throw new LegacyDecodeError(`${at}: the stored hash does not match its content`)
  }
  const foreign = sourceRefs.find((ref) => ref.sourceType !== 'content')
  if (foreign !== undefined) {
    throw new LegacyDecodeError(
      `${at} cites a ${foreign.sourceType} source, which has no counterpart here`,
    )
  }
  if (artifactRefs.length > 0) {
    const a = artifactRefs[0] as { family: string; artifactId: string; revision: number }
    throw new LegacyDecodeError(
      `${at} cites the artifact ${a.family}/${a.artifactId}@${a.revision}, which has no atomic counterpart`,
    )
  }
  const previous = r['previous_version_id']
  return {
    memoryArtifactId: String(r['memory_artifact_id']),
    entryId,
    entryVersionId,
    version: Number(r['version']),
    previousVersionId: previous === null || previous === undefined ? null : String(previous),
    kind,
    text,
    sourceIds: sourceRefs.map((ref) => ref.sourceId),
    createdInRevision: Number(r['created_in_revision']),
  }
}

/** The scope's source cursors (binding → position bytes and generation). */
export async function referenceCursors(
  s: ReferenceSession,
  scopeId: string,
): Promise<{ binding: string; cursor: Uint8Array; generation: number }[]> {
  const rows = await s.all<{ binding_name: string; cursor: unknown; generation: number }>(
    `SELECT binding_name, \`cursor\`, generation FROM pc_source_cursors WHERE scope_id = ?
     ORDER BY binding_name`,
    [scopeId],
  )
  return rows.map((r) => ({
    binding: String(r.binding_name),
    cursor: blobBytes(r.cursor, `cursor ${String(r.binding_name)}`),
    generation: Number(r.generation),
  }))
}

/** Ids among `ids` with no `content` source in the scope. */
export async function missingReferenceSources(
  s: ReferenceSession,
  scopeId: string,
  ids: readonly string[],
): Promise<string[]> {
  const found = new Set<string>()
  for (let i = 0; i < ids.length; i += IN_BATCH) {
    const batch = ids.slice(i, i + IN_BATCH)
    const rows = await s.all<{ source_id: string }>(
      `SELECT source_id FROM pc_sources WHERE scope_id = ? AND source_type = 'content'
       AND source_id IN (${placeholders(batch.length)})`,
      [scopeId, ...batch],
    )
    for (const r of rows) found.add(String(r.source_id))
  }
  return ids.filter((id) => !found.has(id))
}

/**
 * SHA-256 over what changes when the reference writes into a scope: journal head, source count
 * and last position, every artifact head, every cursor generation, the entry version count.
 */
export async function referenceFingerprint(s: ReferenceSession, scopeId: string): Promise<string> {
  const q = (sql: string) => s.all<Record<string, unknown>>(sql, [scopeId])
  const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
  const journal = await q('SELECT position FROM pc_source_journal_heads WHERE scope_id = ?')
  const sources = await q(
    'SELECT COUNT(*) AS n, MAX(journal_position) AS p FROM pc_sources WHERE scope_id = ?',
  )
  const heads = await q(
    'SELECT family, artifact_id, revision FROM pc_artifact_heads WHERE scope_id = ? ORDER BY family, artifact_id',
  )
  const cursors = await q(
    'SELECT binding_name, generation FROM pc_source_cursors WHERE scope_id = ? ORDER BY binding_name',
  )
  const versions = await q('SELECT COUNT(*) AS n FROM pc_memory_entry_versions WHERE scope_id = ?')
  const state = {
    journal: n(journal[0]?.['position']),
    sources: [n(sources[0]?.['n']), n(sources[0]?.['p'])],
    heads: heads.map((h) => [String(h['family']), String(h['artifact_id']), n(h['revision'])]),
    cursors: cursors.map((c) => [String(c['binding_name']), n(c['generation'])]),
    versions: n(versions[0]?.['n']),
  }
  return createHash('sha256').update(canonicalJson(state, 'fingerprint')).digest('hex')
}
