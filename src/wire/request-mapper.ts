import type { components } from '../contract/powercontext-types.js'
import type { ArtifactRef, SourceRef } from '../core/memory-model.js'
import type * as Spi from '../storage/spi/memory-backend.js'

/**
 * Wire → domain conversion of request bodies, typed from the contract: each mapper
 * takes the contract's request schema and returns the SPI command. Bodies have already passed the
 * contract's schema (the CLI's `--file` entries have not: the backend checks every domain rule).
 * An absent optional field stays `undefined` (keeps), a `null` stays `null` (clears).
 */
type Wire = components['schemas']

/** Source refs; anything but an array (unchecked CLI input) is "none given". */
const sourceRefs = (v: Wire['SourceRefList'] | undefined): SourceRef[] | undefined =>
  Array.isArray(v) ? v.map((s) => ({ name: s.name, sourceId: s.source_id })) : undefined

const artifactRef = (r: Wire['ArtifactRef']): ArtifactRef => ({
  artifactId: r.artifact_id,
  revision: r.revision,
})

export const fromWireRemember = (b: Wire['RememberRequest']): Spi.RememberCommand => ({
  scopeId: b.scope_id,
  entries: b.entries.map((e) => ({
    kind: e.kind,
    text: e.text,
    sources: sourceRefs(e.sources),
    observedAt: e.observed_at,
    reason: e.reason,
  })),
})

export const fromWireUpdate = (b: Wire['UpdateRequest']): Spi.UpdateCommand => ({
  scopeId: b.scope_id,
  memoryRef: artifactRef(b.memory_ref),
  text: b.text,
  kind: b.kind,
  sources: sourceRefs(b.sources),
  observedAt: b.observed_at,
  reason: b.reason,
})

export const fromWireForget = (b: Wire['ForgetRequest']): Spi.ForgetCommand => ({
  scopeId: b.scope_id,
  memoryId: b.memory_id,
  expectedRevision: b.expected_revision,
  reason: b.reason,
})

export const fromWireRestore = (b: Wire['RestoreRequest']): Spi.RestoreCommand => ({
  scopeId: b.scope_id,
  memoryId: b.memory_id,
  toRevision: b.to_revision,
  previewToken: b.preview_token,
  reason: b.reason,
})

export const fromWireRestorePreview = (
  b: Wire['RestorePreviewRequest'],
): Spi.RestorePreviewCommand => ({
  scopeId: b.scope_id,
  memoryId: b.memory_id,
  toRevision: b.to_revision,
})

export const fromWireMerge = (b: Wire['MergeRequest']): Spi.MergeCommand => ({
  scopeId: b.scope_id,
  inputs: b.inputs.map(artifactRef),
  kind: b.kind,
  text: b.text,
  reason: b.reason,
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

export const fromWireGet = (b: Wire['GetRequest']): Spi.GetCommand => {
  if ('legacy_citation' in b)
    return { scopeId: b.scope_id, legacyCitation: fromWireLegacyCitation(b.legacy_citation) }
  if ('memory_ref' in b) {
    const ref = artifactRef(b.memory_ref)
    return { scopeId: b.scope_id, memoryId: ref.artifactId, revision: ref.revision }
  }
  return { scopeId: b.scope_id, memoryId: b.memory_id }
}

export const fromWireHistory = (b: Wire['HistoryRequest']): Spi.HistoryCommand => ({
  scopeId: b.scope_id,
  memoryId: b.memory_id,
  after: b.after,
})

export const fromWireList = (b: Wire['ListRequest']): Spi.ListCommand => ({
  scopeId: b.scope_id,
  states: b.states,
  kinds: b.kinds,
  limit: b.limit,
  after: b.after,
})

export const fromWireSearch = (b: Wire['SearchRequest']): Spi.SearchCommand => ({
  scopeId: b.scope_id,
  query: b.query,
  limit: b.limit,
  mode: b.mode,
  kinds: b.kinds,
})

export const fromWireChanges = (b: Wire['ChangesRequest']): Spi.ChangesCommand => ({
  scopeId: b.scope_id,
  since: b.since ?? 0,
  limit: b.limit,
})

export const fromWireCapture = (b: Wire['CaptureContentRequest']): Spi.CaptureSourceCommand => ({
  scopeId: b.scope_id,
  sourceId: b.source_id,
  content: b.content,
  mediaType: b.media_type,
  metadata: b.metadata ?? undefined,
  occurredAt: b.occurred_at,
})
