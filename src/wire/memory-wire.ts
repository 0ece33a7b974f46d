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
import { toWireRedaction, toWireRedactionEntry } from './redaction-wire.js'
import { toWireSkipped } from './skipped-wire.js'

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
