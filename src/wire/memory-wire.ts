import type { ArtifactRef, Memory, MemoryChange, SourceRef } from '../core/memory-model.js'
import type {
  ChangesResult,
  GetResult,
  HistoryResult,
  ListResult,
  SearchHit,
  SearchResult,
} from '../storage/memory-backend.js'

/**
 * Domain ↔ wire conversion for memory resources (STYLE R13): domain code is camelCase, the wire is
 * snake_case as DESIGN §7 lists. Every surface (CLI `--json`, HTTP, MCP) uses these mappers.
 */
export const toWireArtifactRef = (r: ArtifactRef) => ({
  artifact_id: r.artifactId,
  revision: r.revision,
})
export const toWireSourceRef = (r: SourceRef) => ({ name: r.name, source_id: r.sourceId })

export const toWireMemory = (m: Memory) => ({
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
})

export const toWireChange = (c: MemoryChange) => ({
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

export const toWireHit = (h: SearchHit) => ({
  memory_ref: toWireArtifactRef(h.memoryRef),
  kind: h.kind,
  text: h.text,
  score: h.score,
  matched_by: [...h.matchedBy],
})

export const toWireSearch = (r: SearchResult) => ({ mode: r.mode, hits: r.hits.map(toWireHit) })

export const toWireGet = (r: GetResult) => ({
  memory: toWireMemory(r.memory),
  current_revision: r.currentRevision,
  state: r.state,
})

export const toWireHistory = (r: HistoryResult) => ({
  memory_id: r.memoryId,
  state: r.state,
  current_revision: r.currentRevision,
  versions: r.versions.map(toWireMemory),
  transitions: r.transitions.map(toWireChange),
  merges: [...r.merges],
})

export const toWireList = (r: ListResult) => ({
  memories: r.memories.map(toWireMemory),
  next_after: r.nextAfter,
})

export const toWireChanges = (r: ChangesResult) => ({
  changes: r.changes.map(toWireChange),
  head_seq: r.headSeq,
})

/** The error envelope body of DESIGN §7. */
export const toWireError = (
  e: { code: string; message: string; details?: Readonly<Record<string, unknown>> | undefined },
  requestId: string | null,
) => ({
  error: { code: e.code, message: e.message, request_id: requestId, details: e.details ?? null },
})
