/**
 * Domain ↔ wire conversion of the browsing reads (STYLE R13): `POST /v1/scopes/list`,
 * `POST /v1/sources/get` and `POST /v1/sources/list`, their requests and responses.
 */
import type { components } from '../contract/powercontext-types.js'
import type * as L from '../storage/spi/listing-types.js'

type Body = Record<string, unknown>
type Wire = components['schemas']
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined)
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** `POST /v1/scopes/list` body → command. */
export const fromWireListScopesRequest = (b: Body): L.ListScopesCommand => ({
  after: str(b['after']),
  limit: int(b['limit']),
})

/** `POST /v1/sources/get` body → command. */
export const fromWireGetSourcesRequest = (b: Body): L.GetSourcesCommand => ({
  scopeId: b['scope_id'] as string,
  sourceIds: b['source_ids'] as string[],
})

/** `POST /v1/sources/list` body → command. */
export const fromWireListSourcesRequest = (b: Body): L.ListSourcesCommand => ({
  scopeId: b['scope_id'] as string,
  after: int(b['after']),
  limit: int(b['limit']),
})

const toWireScope = (s: L.ScopeSummary): Wire['ScopeSummary'] => ({
  scope_id: s.scopeId,
  counts: { ...s.counts },
  memory_count: s.memoryCount,
  head_seq: s.headSeq,
  last_change_at: s.lastChangeAt,
  high_watermark: s.highWatermark,
  cursor: s.cursor,
})

/** A scopes page on the wire. */
export const toWireListScopes = (r: L.ListScopesResult): Wire['ListScopesResponse'] => ({
  scopes: r.scopes.map(toWireScope),
  next_after: r.nextAfter,
})

const toWireSource = (s: L.SourceView): Wire['SourceView'] => ({
  source: { name: s.source.name, source_id: s.source.sourceId },
  position: s.position,
  content: s.content,
  media_type: s.mediaType,
  metadata: { ...s.metadata },
  occurred_at: s.occurredAt,
  captured_at: s.capturedAt,
  status: s.status,
  failure:
    s.failure === null ? null : { attempts: s.failure.attempts, error: { ...s.failure.error } },
  legacy_payload: s.legacyPayload,
})

/** Sources read by id, on the wire. */
export const toWireGetSources = (r: L.GetSourcesResult): Wire['GetSourcesResponse'] => ({
  sources: r.sources.map(toWireSource),
})

/** A journal page on the wire. */
export const toWireListSources = (r: L.ListSourcesResult): Wire['ListSourcesResponse'] => ({
  sources: r.sources.map(toWireSource),
  cursor: r.cursor,
  high_watermark: r.highWatermark,
  next_after: r.nextAfter,
})

/** A scopes page from the wire (inverse of {@link toWireListScopes}; the remote CLI). */
export const fromWireListScopes = (r: Wire['ListScopesResponse']): L.ListScopesResult =>
  Object.freeze({
    scopes: Object.freeze(
      r.scopes.map((s) =>
        Object.freeze({
          scopeId: s.scope_id,
          counts: Object.freeze({ ...s.counts }),
          memoryCount: s.memory_count,
          headSeq: s.head_seq,
          lastChangeAt: s.last_change_at,
          highWatermark: s.high_watermark,
          cursor: s.cursor,
        }),
      ),
    ),
    nextAfter: r.next_after,
  })
