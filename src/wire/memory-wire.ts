import type { components } from '../contract/powercontext-types.js'
import type { StaleMark } from '../core/freshness.js'
import type {
  ArtifactRef,
  Memory,
  MemoryChange,
  MergeRecord,
  SourceRef,
} from '../core/memory-model.js'
import type {
  ChangesResult,
  GetResult,
  HistoryResult,
  ListResult,
  MergeResult,
  PlanRef,
  RestorePreviewResult,
  RestoreResult,
  SearchHit,
  SearchResult,
} from '../storage/spi/memory-backend.js'
import {
  fromWireRedaction,
  fromWireRedactionEntry,
  toWireRedaction,
  toWireRedactionEntry,
} from './redaction-wire.js'
import { fromWireSkipped, toWireSkipped } from './skipped-wire.js'

/** The contract's shapes: each domain → wire mapper returns one, so a renamed field fails `tsc`. */
type Wire = components['schemas']

/**
 * Domain ↔ wire conversion for memory resources: domain code is camelCase, the wire is
 * snake_case as docs/http-api.md lists. Every surface (CLI `--json`, HTTP, MCP) uses these mappers.
 */
export const toWireArtifactRef = (r: ArtifactRef): Wire['ArtifactRef'] => ({
  artifact_id: r.artifactId,
  revision: r.revision,
})
export const toWireSourceRef = (r: SourceRef): Wire['SourceRef'] => ({
  name: r.name,
  source_id: r.sourceId,
})

export const toWireMemory = (m: Memory): Wire['Memory'] => ({
  memory_ref: toWireArtifactRef(m.memoryRef),
  scope_id: m.scopeId,
  state: m.state,
  kind: m.kind,
  text: m.text,
  sources: m.sources.map(toWireSourceRef),
  artifacts: m.artifacts.map(toWireArtifactRef),
  observed_at: m.observedAt,
  content_hash: m.contentHash,
  created_at: m.createdAt,
  merged_into: m.mergedInto,
  reason: m.reason,
  ...(m.redaction === undefined ? {} : { redaction: m.redaction && toWireRedaction(m.redaction) }),
})

export const toWireChange = (c: MemoryChange): Wire['MemoryChange'] => ({
  seq: c.seq,
  op: c.op,
  memory_id: c.memoryId,
  from_revision: c.fromRevision,
  to_revision: c.toRevision,
  from_state: c.fromState,
  to_state: c.toState,
  reason: c.reason,
  operation_id: c.operationId,
  at: c.at,
})

/** A stale mark (docs/agents.md "Freshness"). */
export const toWireStale = (m: StaleMark): Wire['StaleMark'] => ({
  commits: m.commits.map((c) => ({
    commit: c.commit,
    paths: [...c.paths],
    captured_at: c.capturedAt,
  })),
})

/** A stale mark (inverse of `toWireStale`). */
export const fromWireStale = (m: Wire['StaleMark']): StaleMark =>
  Object.freeze({
    commits: Object.freeze(
      m.commits.map((c) =>
        Object.freeze({
          commit: c.commit,
          paths: Object.freeze([...c.paths]),
          capturedAt: c.captured_at,
        }),
      ),
    ),
  })

export const toWireHit = (h: SearchHit): Wire['SearchHit'] => ({
  memory_ref: toWireArtifactRef(h.memoryRef),
  kind: h.kind,
  text: h.text,
  score: h.score,
  matched_by: [...h.matchedBy],
  ...(h.stale === undefined ? {} : { stale: toWireStale(h.stale) }),
})

export const toWireSearch = (r: SearchResult): Wire['SearchResponse'] => ({
  mode: r.mode,
  hits: r.hits.map(toWireHit),
})

export const toWireGet = (r: GetResult): Wire['GetResponse'] => ({
  memory: toWireMemory(r.memory),
  current_revision: r.currentRevision,
  state: r.state,
  ...(r.stale === undefined ? {} : { stale: toWireStale(r.stale) }),
})

export const toWireHistory = (r: HistoryResult): Wire['HistoryResponse'] => ({
  memory_id: r.memoryId,
  state: r.state,
  current_revision: r.currentRevision,
  versions: r.versions.map(toWireMemory),
  transitions: r.transitions.map(toWireChange),
  merges: r.merges.map(toWireMergeRelation),
  next_after: r.nextAfter,
})

export const toWireRestore = (r: RestoreResult): Wire['RestoreResponse'] => ({
  status: r.status,
  memory: toWireMemory(r.memory),
  restored: r.restored.map(toWireMemory),
  retired: r.retired.map(toWireMemory),
})

export const toWireMergeRelation = (m: MergeRecord): Wire['MergeRelation'] => ({
  merge_id: m.mergeId,
  state: m.state,
  result_id: m.resultId,
  inputs: m.inputs.map(toWireArtifactRef),
  created_at: m.createdAt,
  operation_id: m.operationId,
  undone_at: m.undoneAt,
  undone_operation_id: m.undoneOperationId,
})

export const toWirePlanRef = (r: PlanRef): Wire['PlanRef'] => ({
  memory_id: r.memoryId,
  version: r.version,
})

export const toWireRestorePreview = (r: RestorePreviewResult): Wire['RestorePreviewResponse'] => ({
  plan: {
    restore: r.plan.restore.map(toWirePlanRef),
    retire: r.plan.retire.map(toWirePlanRef),
    leaving_search: r.plan.leavingSearch.map(toWirePlanRef),
    new_version:
      r.plan.newVersion === null
        ? null
        : {
            memory_id: r.plan.newVersion.memoryId,
            from_revision: r.plan.newVersion.fromRevision,
            version: r.plan.newVersion.version,
          },
  },
  preview_token: r.previewToken,
})

export const toWireMerge = (r: MergeResult): Wire['MergeResponse'] => ({
  status: r.status,
  merge_id: r.mergeId,
  memory: toWireMemory(r.memory),
  inputs: r.inputs.map(toWireMemory),
})

export const toWireList = (r: ListResult): Wire['ListResponse'] => ({
  memories: r.memories.map(toWireMemory),
  next_after: r.nextAfter,
})

export const toWireChanges = (r: ChangesResult): Wire['ChangesResponse'] => ({
  changes: r.changes.map(toWireChange),
  head_seq: r.headSeq,
  has_more: r.hasMore,
  next_since: r.nextSince,
  skipped_sources: (r.skippedSources ?? []).map(toWireSkipped),
  redactions: (r.redactions ?? []).map(toWireRedactionEntry),
})

/** The error envelope body (docs/http-api.md). */
export const toWireError = (
  e: { code: string; message: string; details?: Readonly<Record<string, unknown>> | undefined },
  requestId: string | null,
) => ({
  error: { code: e.code, message: e.message, request_id: requestId, details: e.details ?? null },
})

/*
 * Wire → domain conversion of response bodies (the inverse of the mappers above), for surfaces
 * that reach a runtime through the HTTP client (CLI `--server-url`). Records come back frozen,
 * as the runtime's own are (results are immutable).
 */

/** An exact reference `{artifact_id, revision}` as a domain `ArtifactRef`. */
export const fromWireArtifactRef = (r: Wire['ArtifactRef']): ArtifactRef =>
  Object.freeze({ artifactId: r.artifact_id, revision: r.revision })

/** A source reference `{name, source_id}` as a domain `SourceRef`. */
export const fromWireSourceRef = (r: Wire['SourceRef']): SourceRef =>
  Object.freeze({ name: r.name, sourceId: r.source_id })

/** A wire `Memory` as the domain `Memory` (inverse of `toWireMemory`). */
export const fromWireMemory = (m: Wire['Memory']): Memory =>
  Object.freeze({
    memoryRef: fromWireArtifactRef(m.memory_ref),
    scopeId: m.scope_id,
    state: m.state,
    kind: m.kind,
    text: m.text,
    sources: Object.freeze(m.sources.map(fromWireSourceRef)),
    artifacts: Object.freeze(m.artifacts.map(fromWireArtifactRef)),
    observedAt: m.observed_at,
    contentHash: m.content_hash,
    createdAt: m.created_at,
    mergedInto: m.merged_into,
    reason: m.reason,
    ...(m.redaction === undefined
      ? {}
      : { redaction: m.redaction && fromWireRedaction(m.redaction) }),
  })

/** A change-log row (inverse of `toWireChange`). */
export const fromWireChange = (c: Wire['MemoryChange']): MemoryChange =>
  Object.freeze({
    seq: c.seq,
    op: c.op,
    memoryId: c.memory_id,
    fromRevision: c.from_revision,
    toRevision: c.to_revision,
    fromState: c.from_state,
    toState: c.to_state,
    reason: c.reason,
    operationId: c.operation_id,
    at: c.at,
  })

/** A search hit (inverse of `toWireHit`). */
export const fromWireHit = (h: Wire['SearchHit']): SearchHit =>
  Object.freeze({
    memoryRef: fromWireArtifactRef(h.memory_ref),
    kind: h.kind,
    text: h.text,
    score: h.score,
    matchedBy: Object.freeze([...h.matched_by]),
    ...(h.stale === undefined ? {} : { stale: fromWireStale(h.stale) }),
  })

/** A search response (inverse of `toWireSearch`). */
export const fromWireSearch = (r: Wire['SearchResponse']): SearchResult =>
  Object.freeze({ mode: r.mode, hits: Object.freeze(r.hits.map(fromWireHit)) })

/** A get response (inverse of `toWireGet`). */
export const fromWireGet = (r: Wire['GetResponse']): GetResult =>
  Object.freeze({
    memory: fromWireMemory(r.memory),
    currentRevision: r.current_revision,
    state: r.state,
    ...(r.stale === undefined ? {} : { stale: fromWireStale(r.stale) }),
  })

/**
 * A merge relation of a history (inverse of `toWireMergeRelation`). The wire does not carry the
 * operation ids, so they come back empty (`''`, null); the scope is the history's.
 */
export const fromWireMergeRelation = (m: Wire['MergeRelation'], scopeId: string): MergeRecord =>
  Object.freeze({
    mergeId: m.merge_id,
    scopeId,
    resultId: m.result_id,
    inputs: Object.freeze(m.inputs.map(fromWireArtifactRef)),
    state: m.state,
    createdAt: m.created_at,
    operationId: m.operation_id,
    undoneAt: m.undone_at,
    undoneOperationId: m.undone_operation_id,
  })

/** A history response (inverse of `toWireHistory`); `scopeId` is the scope it was read in. */
export const fromWireHistory = (r: Wire['HistoryResponse'], scopeId: string): HistoryResult =>
  Object.freeze({
    memoryId: r.memory_id,
    state: r.state,
    currentRevision: r.current_revision,
    versions: Object.freeze(r.versions.map(fromWireMemory)),
    transitions: Object.freeze(r.transitions.map(fromWireChange)),
    merges: Object.freeze(r.merges.map((m) => fromWireMergeRelation(m, scopeId))),
    nextAfter: r.next_after,
  })

/** A plan entry of a restore preview (inverse of `toWirePlanRef`). */
export const fromWirePlanRef = (r: Wire['PlanRef']): PlanRef =>
  Object.freeze({ memoryId: r.memory_id, version: r.version })

/** A restore preview (inverse of `toWireRestorePreview`). */
export const fromWireRestorePreview = (r: Wire['RestorePreviewResponse']): RestorePreviewResult => {
  const next = r.plan.new_version
  return Object.freeze({
    plan: Object.freeze({
      restore: Object.freeze(r.plan.restore.map(fromWirePlanRef)),
      retire: Object.freeze(r.plan.retire.map(fromWirePlanRef)),
      leavingSearch: Object.freeze(r.plan.leaving_search.map(fromWirePlanRef)),
      newVersion:
        next === null
          ? null
          : Object.freeze({
              memoryId: next.memory_id,
              fromRevision: next.from_revision,
              version: next.version,
            }),
    }),
    previewToken: r.preview_token,
  })
}

/** A merge response (inverse of `toWireMerge`). */
export const fromWireMerge = (r: Wire['MergeResponse']): MergeResult =>
  Object.freeze({
    status: r.status,
    mergeId: r.merge_id,
    memory: fromWireMemory(r.memory),
    inputs: Object.freeze(r.inputs.map(fromWireMemory)),
  })

/** A list page (inverse of `toWireList`). */
export const fromWireList = (r: Wire['ListResponse']): ListResult =>
  Object.freeze({
    memories: Object.freeze(r.memories.map(fromWireMemory)),
    nextAfter: r.next_after,
  })

/** A changes response (inverse of `toWireChanges`). */
export const fromWireChanges = (r: Wire['ChangesResponse']): ChangesResult =>
  Object.freeze({
    changes: Object.freeze(r.changes.map(fromWireChange)),
    headSeq: r.head_seq,
    hasMore: r.has_more,
    nextSince: r.next_since,
    ...(r.skipped_sources?.length
      ? { skippedSources: r.skipped_sources.map(fromWireSkipped) }
      : {}),
    ...(r.redactions?.length ? { redactions: r.redactions.map(fromWireRedactionEntry) } : {}),
  })
