/**
 * Domain ↔ wire conversion of prepared context: `POST /v1/context/prepare`. The
 * response is the v1 envelope with exactly its four fields: the Python reference's plugins reject
 * any other field, so nothing may be added here.
 */
import type { components } from '../contract/powercontext-types.js'
import { PREPARED_CONTEXT_SCHEMA } from '../core/prepared-context.js'
import type { PrepareContextCommand, PrepareContextResult } from '../runtime/context-preparer.js'

type Wire = components['schemas']

/** `POST /v1/context/prepare` body → command. */
export const fromWirePrepareContext = (
  b: Wire['PrepareContextRequest'],
): PrepareContextCommand => ({
  scopeId: b.scope_id,
  scopeIds: b.scope_ids,
  query: b.query,
  maxBytes: b.max_bytes,
  excludeRefs: b.exclude_refs?.map((r) => ({ artifactId: r.artifact_id, revision: r.revision })),
})

/** Result → the v1 envelope. */
export const toWirePreparedContext = (
  r: Pick<PrepareContextResult, 'status' | 'content' | 'contentBytes'>,
): Wire['PreparedContextResponse'] => ({
  schema: PREPARED_CONTEXT_SCHEMA,
  status: r.status,
  content: r.content,
  content_bytes: r.contentBytes,
})
