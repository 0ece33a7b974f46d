/**
 * The steps of one scope's upgrade (docs/upgrade.md), read from the Python reference in the order
 * they happened: the sources in journal order, then each collection's revisions 1…head with the
 * entry versions their changes created, the head manifest, and the memory flush cursor. Read in
 * pages; at most one revision's content is held at a time.
 */
import { invalidRequest } from '../../core/errors.js'
import type { LegacyChange, LegacyStep } from '../spi/legacy-types.js'
import { decodeCursor, decodeMemoryContent, LegacyDecodeError } from './reference-payloads.js'
import {
  decodeSourceRow,
  decodeVersionRow,
  MEMORY_CURSOR_BINDING,
  referenceCollections,
  referenceCursors,
  referenceRevisions,
  referenceSources,
  referenceVersionCount,
  referenceVersionsById,
} from './reference-rows.js'
import type { ReferenceSession } from './reference-session.js'

/** The scope's steps; a row that cannot be read fails with `invalid_request` naming it. */
export async function* referenceSteps(
  s: ReferenceSession,
  legacyScopeId: string,
): AsyncGenerator<LegacyStep> {
  try {
    yield* steps(s, legacyScopeId)
  } catch (err) {
    if (err instanceof LegacyDecodeError) throw invalidRequest('legacy', err.message)
    throw err
  }
}

async function* steps(s: ReferenceSession, scopeId: string): AsyncGenerator<LegacyStep> {
  for await (const row of referenceSources(s, scopeId)) {
    const source = decodeSourceRow(row)
    yield {
      type: 'source',
      sourceId: row.sourceId,
      position: row.position,
      content: source.content,
      metadata: source.metadata,
      originalPayload: row.payload,
    }
  }
  for (const { artifactId, head } of await referenceCollections(s, scopeId)) {
    let last: ReturnType<typeof decodeMemoryContent> | undefined
    for await (const { revision, content } of referenceRevisions(s, scopeId, artifactId, head)) {
      const decoded = decodeMemoryContent(content, `collection ${artifactId}@${revision}`)
      yield {
        type: 'revision',
        memoryArtifactId: artifactId,
        revision,
        changes: await revisionChanges(s, scopeId, artifactId, revision, decoded.changes),
      }
      last = revision === head ? decoded : undefined
    }
    if (last === undefined)
      throw new LegacyDecodeError(`collection ${artifactId} lacks revisions up to its head ${head}`)
    yield {
      type: 'head',
      memoryArtifactId: artifactId,
      revision: head,
      entries: last.entries.map((e) => ({
        entryId: e.entryId,
        entryVersionId: e.entryVersionId,
        state: e.state,
      })),
      versionCount: await referenceVersionCount(s, scopeId, artifactId),
    }
  }
  for (const c of await referenceCursors(s, scopeId)) {
    if (c.binding !== MEMORY_CURSOR_BINDING) continue
    yield { type: 'cursor', position: decodeCursor(c.cursor, `cursor ${c.binding}`) }
  }
}

async function revisionChanges(
  s: ReferenceSession,
  scopeId: string,
  artifactId: string,
  revision: number,
  changes: ReturnType<typeof decodeMemoryContent>['changes'],
): Promise<LegacyChange[]> {
  const wanted = changes.flatMap((c) =>
    (c.op === 'add' || c.op === 'revise') && c.toEntryVersionId !== null
      ? [c.toEntryVersionId]
      : [],
  )
  const rows = await referenceVersionsById(s, scopeId, artifactId, wanted)
  return changes.map((c): LegacyChange => {
    if (c.op === 'deactivate' || c.op === 'reactivate') {
      const id = c.op === 'deactivate' ? c.fromEntryVersionId : c.toEntryVersionId
      return { op: c.op, entryId: c.entryId, entryVersionId: id as string, reason: c.reason }
    }
    const row = rows.get(c.toEntryVersionId as string)
    if (row === undefined) {
      throw new LegacyDecodeError(
        `collection ${artifactId}@${revision}: entry version ${String(c.toEntryVersionId)} is not stored`,
      )
    }
    const version = decodeVersionRow(row)
    if (version.entryId !== c.entryId || version.createdInRevision !== revision) {
      throw new LegacyDecodeError(
        `collection ${artifactId}@${revision}: entry version ${version.entryVersionId} belongs elsewhere`,
      )
    }
    return { op: c.op, entryId: c.entryId, version, reason: c.reason }
  })
}
