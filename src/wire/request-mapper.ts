import type { ArtifactRef, MemoryState, SourceRef } from '../core/memory-model.js'
import type * as Spi from '../storage/spi/memory-backend.js'

/**
 * Wire → domain conversion of request bodies (STYLE R13). Bodies have already passed the contract's
 * schema; every domain rule is still checked by the backend.
 */
type Body = Record<string, unknown>

const sourceRefs = (v: unknown): SourceRef[] | undefined =>
  Array.isArray(v)
    ? v.map((s: { name: SourceRef['name']; source_id: string }) => ({
        name: s.name,
        sourceId: s.source_id,
      }))
    : undefined

const artifactRef = (v: unknown): ArtifactRef => {
  const r = v as { artifact_id: string; revision: number }
  return { artifactId: r.artifact_id, revision: r.revision }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)
const strList = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? (v as string[]) : undefined
/** `null` stays null (clears), absent stays undefined (keeps). */
const nullable = (b: Body, key: string): string | null | undefined =>
  key in b ? ((b[key] ?? null) as string | null) : undefined

export const fromWireRemember = (b: Body): Spi.RememberCommand => ({
  scopeId: b['scope_id'] as string,
  entries: (b['entries'] as Body[]).map((e) => ({
    kind: e['kind'] as string,
    text: e['text'] as string,
    sources: sourceRefs(e['sources']),
    observedAt: nullable(e, 'observed_at'),
    reason: nullable(e, 'reason'),
  })),
})

export const fromWireUpdate = (b: Body): Spi.UpdateCommand => ({
  scopeId: b['scope_id'] as string,
  memoryRef: artifactRef(b['memory_ref']),
  text: str(b['text']),
  kind: str(b['kind']),
  sources: sourceRefs(b['sources']),
  observedAt: nullable(b, 'observed_at'),
  reason: nullable(b, 'reason'),
})

export const fromWireForget = (b: Body): Spi.ForgetCommand => ({
  scopeId: b['scope_id'] as string,
  memoryId: b['memory_id'] as string,
  expectedRevision: int(b['expected_revision']),
  reason: nullable(b, 'reason'),
})

export const fromWireRestore = (b: Body): Spi.RestoreCommand => ({
  scopeId: b['scope_id'] as string,
  memoryId: b['memory_id'] as string,
  toRevision: int(b['to_revision']),
  previewToken: str(b['preview_token']),
  reason: nullable(b, 'reason'),
})

export const fromWireRestorePreview = (b: Body): Spi.RestorePreviewCommand => ({
  scopeId: b['scope_id'] as string,
  memoryId: b['memory_id'] as string,
  toRevision: int(b['to_revision']),
})

export const fromWireMerge = (b: Body): Spi.MergeCommand => ({
  scopeId: b['scope_id'] as string,
  inputs: (b['inputs'] as unknown[]).map(artifactRef),
  kind: b['kind'] as string,
  text: b['text'] as string,
  reason: nullable(b, 'reason'),
})

/**
 * An old entry citation of the Python reference, wire → SPI. Absent fields stay undefined (the
 * backend checks the shape), so the CLI can map JSON that has not passed the contract schema.
 */
export function fromWireLegacyCitation(v: unknown): Spi.LegacyCitationInput {
  const c = (v ?? {}) as {
    memory_ref?: { family?: string; artifact_id?: string; revision?: number }
    entry_id?: string
    entry_version_id?: string
  }
  return {
    memoryRef: {
      family: c.memory_ref?.family,
      artifactId: c.memory_ref?.artifact_id as string,
      revision: c.memory_ref?.revision as number,
    },
    entryId: c.entry_id as string,
    entryVersionId: c.entry_version_id as string,
  }
}

export const fromWireGet = (b: Body): Spi.GetCommand => {
  if (b['legacy_citation'] !== undefined) {
    return {
      scopeId: b['scope_id'] as string,
      legacyCitation: fromWireLegacyCitation(b['legacy_citation']),
    }
  }
  if (b['memory_ref'] !== undefined) {
    const ref = artifactRef(b['memory_ref'])
    return { scopeId: b['scope_id'] as string, memoryId: ref.artifactId, revision: ref.revision }
  }
  return { scopeId: b['scope_id'] as string, memoryId: b['memory_id'] as string }
}

export const fromWireHistory = (b: Body): Spi.HistoryCommand => ({
  scopeId: b['scope_id'] as string,
  memoryId: b['memory_id'] as string,
})

export const fromWireList = (b: Body): Spi.ListCommand => ({
  scopeId: b['scope_id'] as string,
  states: strList(b['states']) as MemoryState[] | undefined,
  kinds: strList(b['kinds']),
  limit: int(b['limit']),
  after: str(b['after']),
})

export const fromWireSearch = (b: Body): Spi.SearchCommand => ({
  scopeId: b['scope_id'] as string,
  query: b['query'] as string,
  limit: int(b['limit']),
  mode: str(b['mode']) as Spi.SearchMode | undefined,
  kinds: strList(b['kinds']),
})

export const fromWireChanges = (b: Body): Spi.ChangesCommand => ({
  scopeId: b['scope_id'] as string,
  since: int(b['since']) ?? 0,
  limit: int(b['limit']),
})

export const fromWireCapture = (b: Body): Spi.CaptureSourceCommand => ({
  scopeId: b['scope_id'] as string,
  sourceId: str(b['source_id']),
  content: b['content'] as string,
  mediaType: str(b['media_type']),
  metadata: (b['metadata'] ?? undefined) as Record<string, unknown> | undefined,
  occurredAt: nullable(b, 'occurred_at'),
})
