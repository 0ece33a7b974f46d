import type { OperationId, OPERATIONS } from '../contract/operations.js'
import type { components } from '../contract/powercontext-types.js'
import { profileJson } from '../core/embedding.js'
import { PREPARED_CONTEXT_SCHEMA } from '../core/prepared-context.js'
import { SEARCH_LIMIT_MAX } from '../core/search-rules.js'
import { MAX_REASON_CODE_POINTS, MAX_TEXT_BYTES } from '../core/text-rules.js'
import type { MemoryRuntime } from '../runtime/memory-runtime.js'
import {
  CHANGES_LIMIT_MAX,
  LIST_LIMIT_MAX,
  MAX_CAPTURE_METADATA_VALUES,
  MAX_SOURCE_CONTENT_BYTES,
  REMEMBER_MAX_ENTRIES,
} from '../storage/spi/memory-backend.js'
import { MAX_BODY_VALUES } from './body-values.js'
import {
  fromWirePrepareContext,
  fromWireReceipts,
  toWirePreparedContext,
  toWireReceipts,
} from './context-wire.js'
import {
  fromWireFlushRecordsRequest,
  fromWireFlushRequest,
  toWireExtraction,
  toWireFlush,
  toWireFlushRecords,
} from './flush-wire.js'
import {
  fromWireGetSourcesRequest,
  fromWireListScopesRequest,
  fromWireListSourcesRequest,
  toWireGetSources,
  toWireListScopes,
  toWireListSources,
} from './listing-wire.js'
import {
  toWireChanges,
  toWireGet,
  toWireHistory,
  toWireList,
  toWireMemory,
  toWireMerge,
  toWireRestore,
  toWireRestorePreview,
  toWireSearch,
  toWireSourceRef,
} from './memory-wire.js'
import { fromWireRedactRequest, toWireRedact } from './redaction-wire.js'
import * as req from './request-mapper.js'

/** Largest accepted request body, in bytes (HTTP 413 `payload_too_large` above it). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024

/**
 * The contract operations a surface answers itself, without the runtime's handler table: liveness,
 * readiness (its own 503 report), the contract document, the server's metrics and Claude Code's
 * http hook (it keeps per-session state of the server and reads request headers).
 */
export const SURFACE_OPERATIONS = [
  'live',
  'ready',
  'openapiDocument',
  'metrics',
  'claudeCodeHook',
] as const satisfies readonly OperationId[]
/** An operation a surface answers itself. */
export type SurfaceOperationId = (typeof SURFACE_OPERATIONS)[number]
/** An operation answered by the runtime through {@link OPERATION_HANDLERS}. */
export type RuntimeOperationId = Exclude<OperationId, SurfaceOperationId>

const SURFACE_ONLY: ReadonlySet<OperationId> = new Set(SURFACE_OPERATIONS)
/** True for the operations {@link OPERATION_HANDLERS} answers. */
export const isRuntimeOperation = (id: OperationId): id is RuntimeOperationId =>
  !SURFACE_ONLY.has(id)

type Schemas = components['schemas']
type ContractOperationOf<Op extends OperationId> = Extract<
  (typeof OPERATIONS)[number],
  { operationId: Op }
>
/** The contract's request body of an operation (`{}` for an operation without one). */
export type RequestOf<Op extends OperationId> =
  ContractOperationOf<Op>['requestSchema'] extends infer S extends keyof Schemas
    ? Schemas[S]
    : Record<string, never>

/** The contract's success response body of an operation (`never` for one that is not JSON). */
export type ResponseOf<Op extends OperationId> =
  ContractOperationOf<Op>['responseSchema'] extends infer S extends keyof Schemas
    ? Schemas[S]
    : never

/** A runtime-backed operation: its validated contract body in, its contract response out. */
export type OperationHandler<Op extends OperationId = RuntimeOperationId> = (
  runtime: MemoryRuntime,
  body: RequestOf<Op>,
) => Promise<ResponseOf<Op>>

/** Capabilities on the wire, derived from the opened runtime. */
export function wireCapabilities(runtime: MemoryRuntime): Schemas['CapabilitiesResponse'] {
  const caps = runtime.capabilities()
  return {
    version: caps.version,
    backend: caps.backend,
    source_types: [...caps.sourceTypes],
    search_modes: [...caps.searchModes],
    context_versions: [PREPARED_CONTEXT_SCHEMA],
    extraction: toWireExtraction(caps.extraction),
    embedding_profile: caps.embeddingProfile === null ? null : profileJson(caps.embeddingProfile),
    cluster:
      caps.cluster === null
        ? null
        : {
            kind: caps.cluster.kind,
            size: caps.cluster.size,
            node_state: caps.cluster.nodeState,
            primary: caps.cluster.primary,
          },
    limits: {
      text_bytes: MAX_TEXT_BYTES,
      reason_characters: MAX_REASON_CODE_POINTS,
      remember_entries: REMEMBER_MAX_ENTRIES,
      list_limit_max: LIST_LIMIT_MAX,
      search_limit_max: SEARCH_LIMIT_MAX,
      changes_limit_max: CHANGES_LIMIT_MAX,
      source_content_bytes: MAX_SOURCE_CONTENT_BYTES,
      body_bytes: MAX_BODY_BYTES,
      body_values: MAX_BODY_VALUES,
      metadata_values: MAX_CAPTURE_METADATA_VALUES,
    },
  }
}

/**
 * One handler per runtime-backed contract operation: the thin wire ↔ domain mapping every surface
 * (HTTP routes, MCP tools) calls through `invokeOperation`. Exhaustive: a contract operation
 * without a handler here (and not in {@link SURFACE_OPERATIONS}) does not compile.
 */
export const OPERATION_HANDLERS = {
  capabilities: async (rt) => wireCapabilities(rt),
  captureContent: async (rt, b) => {
    const r = await rt.captureSource(req.fromWireCapture(b))
    return {
      status: r.status,
      source: toWireSourceRef(r.source),
      position: r.position,
      created: r.created,
    }
  },
  remember: async (rt, b) => {
    const r = await rt.remember(req.fromWireRemember(b))
    return { results: r.results.map((x) => ({ status: x.status, memory: toWireMemory(x.memory) })) }
  },
  update: async (rt, b) => {
    const r = await rt.update(req.fromWireUpdate(b))
    return { status: r.status, memory: toWireMemory(r.memory) }
  },
  forget: async (rt, b) => {
    const r = await rt.forget(req.fromWireForget(b))
    return { status: r.status, memory: toWireMemory(r.memory) }
  },
  restore: async (rt, b) => toWireRestore(await rt.restore(req.fromWireRestore(b))),
  restorePreview: async (rt, b) =>
    toWireRestorePreview(await rt.restorePreview(req.fromWireRestorePreview(b))),
  merge: async (rt, b) => toWireMerge(await rt.merge(req.fromWireMerge(b))),
  get: async (rt, b) => toWireGet(await rt.get(req.fromWireGet(b))),
  history: async (rt, b) => toWireHistory(await rt.history(req.fromWireHistory(b))),
  list: async (rt, b) => toWireList(await rt.list(req.fromWireList(b))),
  search: async (rt, b) => toWireSearch(await rt.search(req.fromWireSearch(b))),
  prepareContext: async (rt, b) =>
    toWirePreparedContext(await rt.prepareContext(fromWirePrepareContext(b))),
  contextReceipts: async (rt, b) => toWireReceipts(await rt.contextReceipts(fromWireReceipts(b))),
  changes: async (rt, b) => toWireChanges(await rt.changes(req.fromWireChanges(b))),
  flush: async (rt, b) => toWireFlush(await rt.flush(fromWireFlushRequest(b))),
  listScopes: async (rt, b) => toWireListScopes(await rt.listScopes(fromWireListScopesRequest(b))),
  getSources: async (rt, b) => toWireGetSources(await rt.getSources(fromWireGetSourcesRequest(b))),
  listSources: async (rt, b) =>
    toWireListSources(await rt.listSources(fromWireListSourcesRequest(b))),
  flushRecords: async (rt, b) =>
    toWireFlushRecords(await rt.flushRecords(fromWireFlushRecordsRequest(b))),
  redact: async (rt, b) => toWireRedact(await rt.redact(fromWireRedactRequest(b))),
} as const satisfies { [Op in RuntimeOperationId]: OperationHandler<Op> }
