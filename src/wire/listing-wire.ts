/**
 * Domain ↔ wire conversion of the browsing reads: `POST /v1/scopes/list`,
 * `POST /v1/sources/get` and `POST /v1/sources/list`, their requests and responses.
 */
import type { components } from '../contract/powercontext-types.js'
import { copyMember } from '../core/json-text.js'
import type * as L from '../storage/spi/listing-types.js'
import { toWireRedaction } from './redaction-wire.js'

type Wire = components['schemas']

/** `POST /v1/scopes/list` body → command. */
export const fromWireListScopesRequest = (b: Wire['ListScopesRequest']): L.ListScopesCommand => ({
  after: b.after,
  limit: b.limit,
})

/** `POST /v1/sources/get` body → command. */
export const fromWireGetSourcesRequest = (b: Wire['GetSourcesRequest']): L.GetSourcesCommand => ({
  scopeId: b.scope_id,
  sourceIds: b.source_ids,
})

/** `POST /v1/sources/list` body → command. */
export const fromWireListSourcesRequest = (
  b: Wire['ListSourcesRequest'],
): L.ListSourcesCommand => ({
  scopeId: b.scope_id,
  after: b.after,
  limit: b.limit,
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

// A large content goes out as its stored JSON text, unparsed (`copyMember`, json-text.ts).
const toWireSource = (s: L.SourceView): Wire['SourceView'] =>
  copyMember(s, toWireSourceWithout(s), 'content')

const toWireSourceWithout = (s: L.SourceView): Wire['SourceView'] => ({
  source: { name: s.source.name, source_id: s.source.sourceId },
  position: s.position,
  content: '',
  media_type: s.mediaType,
  metadata: { ...s.metadata },
  occurred_at: s.occurredAt,
  captured_at: s.capturedAt,
  status: s.status,
  failure:
    s.failure === null ? null : { attempts: s.failure.attempts, error: { ...s.failure.error } },
  legacy_payload: s.legacyPayload,
  ...(s.redaction === undefined ? {} : { redaction: toWireRedaction(s.redaction) }),
})

/** Sources read by id, on the wire. */
export const toWireGetSources = (r: L.GetSourcesResult): Wire['GetSourcesResponse'] => ({
  sources: r.sources.map(toWireSource),
  remaining_source_ids: [...r.remainingSourceIds],
})

/** A journal page on the wire. */
export const toWireListSources = (r: L.ListSourcesResult): Wire['ListSourcesResponse'] => ({
  sources: r.sources.map(toWireSource),
  cursor: r.cursor,
  high_watermark: r.highWatermark,
  next_after: r.nextAfter,
})
