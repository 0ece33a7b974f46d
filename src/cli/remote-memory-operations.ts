import type { PowerContextClient } from '../client/index.js'
import type { ArtifactRef } from '../core/memory-model.js'
import type { PrepareContextCommand } from '../runtime/context-preparer.js'
import type { MemoryOperations, PreparedEnvelope } from '../runtime/memory-operations.js'
import type { ReceiptsCommand, ReceiptsPage } from '../runtime/receipt-recorder.js'
import type { FlushCommand, FlushResult } from '../runtime/source-flusher.js'
import type { FlushRecordsCommand, FlushRecordsResult } from '../storage/spi/flush-types.js'
import type * as L from '../storage/spi/listing-types.js'
import type * as Spi from '../storage/spi/memory-backend.js'
import type { RedactCommand, RedactResult } from '../storage/spi/redaction-types.js'
import { fromWireReceiptsPage } from '../wire/context-wire.js'
import { fromWireFlush, fromWireFlushRecords } from '../wire/flush-wire.js'
import { fromWireListScopes } from '../wire/listing-wire.js'
import {
  fromWireChanges,
  fromWireGet,
  fromWireHistory,
  fromWireList,
  fromWireMemory,
  fromWireMerge,
  fromWireRestorePreview,
  fromWireSearch,
  fromWireSourceRef,
  toWireArtifactRef,
  toWireSourceRef,
} from '../wire/memory-wire.js'
import { fromWireRedact } from '../wire/redaction-wire.js'

/** `{key: value}` when the value is given, `{}` otherwise (absent ≠ null on the wire). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

const sourceRefs = (refs: Spi.RememberEntry['sources']) => refs?.map(toWireSourceRef)

/**
 * {@link MemoryOperations} over the HTTP client: domain command → wire request → server → wire
 * response → domain result. Server failures reject with the client's `PowerContextClientError`,
 * which keeps the server's code and request id. Each call is sent once (no retries).
 */
export class RemoteMemoryOperations implements MemoryOperations {
  readonly #client: PowerContextClient

  constructor(client: PowerContextClient) {
    this.#client = client
  }

  async remember(cmd: Spi.RememberCommand): Promise<Spi.RememberResult> {
    const r = await this.#client.remember({
      scope_id: cmd.scopeId,
      entries: cmd.entries.map((e) => ({
        kind: e.kind,
        text: e.text,
        ...opt('sources', sourceRefs(e.sources)),
        ...opt('observed_at', e.observedAt),
        ...opt('reason', e.reason),
      })),
    })
    return {
      results: r.results.map((x) => ({ status: x.status, memory: fromWireMemory(x.memory) })),
    }
  }

  async update(cmd: Spi.UpdateCommand): Promise<Spi.UpdateResult> {
    const r = await this.#client.update({
      scope_id: cmd.scopeId,
      memory_ref: toWireArtifactRef(cmd.memoryRef),
      ...opt('text', cmd.text),
      ...opt('kind', cmd.kind),
      ...opt('sources', sourceRefs(cmd.sources)),
      ...opt('observed_at', cmd.observedAt),
      ...opt('reason', cmd.reason),
    })
    return { status: r.status, memory: fromWireMemory(r.memory) }
  }

  async forget(cmd: Spi.ForgetCommand): Promise<Spi.ForgetResult> {
    const r = await this.#client.forget({
      scope_id: cmd.scopeId,
      memory_id: cmd.memoryId,
      ...opt('expected_revision', cmd.expectedRevision),
      ...opt('reason', cmd.reason),
    })
    return { status: r.status, memory: fromWireMemory(r.memory) }
  }

  async restore(cmd: Spi.RestoreCommand): Promise<Spi.RestoreResult> {
    const r = await this.#client.restore({
      scope_id: cmd.scopeId,
      memory_id: cmd.memoryId,
      ...opt('to_revision', cmd.toRevision),
      ...opt('preview_token', cmd.previewToken),
      ...opt('reason', cmd.reason),
    })
    return {
      status: r.status,
      memory: fromWireMemory(r.memory),
      restored: r.restored.map(fromWireMemory),
      retired: r.retired.map(fromWireMemory),
    }
  }

  async restorePreview(cmd: Spi.RestorePreviewCommand): Promise<Spi.RestorePreviewResult> {
    const r = await this.#client.restorePreview({
      scope_id: cmd.scopeId,
      memory_id: cmd.memoryId,
      ...opt('to_revision', cmd.toRevision),
    })
    return fromWireRestorePreview(r)
  }

  async merge(cmd: Spi.MergeCommand): Promise<Spi.MergeResult> {
    const r = await this.#client.merge({
      scope_id: cmd.scopeId,
      inputs: cmd.inputs.map(toWireArtifactRef),
      kind: cmd.kind,
      text: cmd.text,
      ...opt('reason', cmd.reason),
    })
    return fromWireMerge(r)
  }

  async get(cmd: Spi.GetCommand): Promise<Spi.GetResult> {
    const c = cmd.legacyCitation
    if (c !== undefined) {
      const memoryRef = { artifact_id: c.memoryRef.artifactId, revision: c.memoryRef.revision }
      const legacy = {
        memory_ref: {
          ...memoryRef,
          ...(c.memoryRef.family === undefined ? {} : { family: 'memory' as const }),
        },
        entry_id: c.entryId,
        entry_version_id: c.entryVersionId,
      }
      return fromWireGet(await this.#client.get({ scope_id: cmd.scopeId, legacy_citation: legacy }))
    }
    const memoryId = cmd.memoryId ?? ''
    const body =
      cmd.revision === undefined
        ? { scope_id: cmd.scopeId, memory_id: memoryId }
        : {
            scope_id: cmd.scopeId,
            memory_ref: toWireArtifactRef({ artifactId: memoryId, revision: cmd.revision }),
          }
    return fromWireGet(await this.#client.get(body))
  }

  async history(cmd: Spi.HistoryCommand): Promise<Spi.HistoryResult> {
    const r = await this.#client.history({
      scope_id: cmd.scopeId,
      memory_id: cmd.memoryId,
      ...opt('after', cmd.after),
    })
    return fromWireHistory(r, cmd.scopeId)
  }

  async list(cmd: Spi.ListCommand): Promise<Spi.ListResult> {
    const r = await this.#client.list({
      scope_id: cmd.scopeId,
      ...opt('states', cmd.states === undefined ? undefined : [...cmd.states]),
      ...opt('kinds', cmd.kinds === undefined ? undefined : [...cmd.kinds]),
      ...opt('limit', cmd.limit),
      ...opt('after', cmd.after),
    })
    return fromWireList(r)
  }

  async search(cmd: Spi.SearchCommand): Promise<Spi.SearchResult> {
    const r = await this.#client.search({
      scope_id: cmd.scopeId,
      query: cmd.query,
      ...opt('limit', cmd.limit),
      ...opt('mode', cmd.mode),
      ...opt('kinds', cmd.kinds === undefined ? undefined : [...cmd.kinds]),
    })
    return fromWireSearch(r)
  }

  async prepareContext(cmd: PrepareContextCommand): Promise<PreparedEnvelope> {
    const r = await this.#client.prepareContext({
      scope_id: cmd.scopeId,
      ...opt('scope_ids', cmd.scopeIds === undefined ? undefined : [...cmd.scopeIds]),
      ...opt('query', cmd.query),
      ...opt('max_bytes', cmd.maxBytes),
      ...opt(
        'exclude_refs',
        cmd.excludeRefs?.map((r) => ({ artifact_id: r.artifactId, revision: r.revision })),
      ),
    })
    return { status: r.status, content: r.content, contentBytes: r.content_bytes }
  }

  async contextReceipts(cmd: ReceiptsCommand): Promise<ReceiptsPage> {
    const r = await this.#client.contextReceipts({
      scope_id: cmd.scopeId,
      ...opt('session_id', cmd.sessionId),
      ...opt('memory_id', cmd.memoryId),
      ...opt('before', cmd.before),
      ...opt('limit', cmd.limit),
    })
    return fromWireReceiptsPage(r)
  }

  async listScopes(cmd: L.ListScopesCommand): Promise<L.ListScopesResult> {
    const r = await this.#client.listScopes({
      ...opt('after', cmd.after),
      ...opt('limit', cmd.limit),
    })
    return fromWireListScopes(r)
  }

  async changes(cmd: Spi.ChangesCommand): Promise<Spi.ChangesResult> {
    const r = await this.#client.changes({
      scope_id: cmd.scopeId,
      since: cmd.since,
      ...opt('limit', cmd.limit),
    })
    return fromWireChanges(r)
  }

  async captureSource(cmd: Spi.CaptureSourceCommand): Promise<Spi.CaptureSourceResult> {
    const r = await this.#client.captureContent({
      scope_id: cmd.scopeId,
      content: cmd.content,
      ...opt('source_id', cmd.sourceId),
      ...opt('media_type', cmd.mediaType),
      ...opt('metadata', cmd.metadata),
      ...opt('occurred_at', cmd.occurredAt),
    })
    return {
      status: r.status,
      source: fromWireSourceRef(r.source),
      position: r.position,
      created: r.created,
    }
  }

  async flush(cmd: FlushCommand): Promise<FlushResult> {
    const r = await this.#client.flush(
      { scope_id: cmd.scopeId, ...opt('limit', cmd.limit), ...opt('until', cmd.until) },
      { timeoutMs: FLUSH_TIMEOUT_MS },
    )
    return fromWireFlush(r)
  }

  async flushRecords(cmd: FlushRecordsCommand): Promise<FlushRecordsResult> {
    const r = await this.#client.flushRecords({
      scope_id: cmd.scopeId,
      ...opt('record_id', cmd.recordId),
      ...opt('after', cmd.after),
      ...opt('limit', cmd.limit),
    })
    return fromWireFlushRecords(r)
  }

  async redact(cmd: RedactCommand): Promise<RedactResult> {
    const t = cmd.target as {
      sourceId?: string
      memoryRef?: ArtifactRef
      recordId?: string
      scan?: true
    }
    const r = await this.#client.redact(
      {
        scope_id: cmd.scopeId,
        ...opt('source_id', t.sourceId),
        ...opt('memory_ref', t.memoryRef && toWireArtifactRef(t.memoryRef)),
        ...opt('record_id', t.recordId),
        ...opt('scan', t.scan),
        ...opt('reason', cmd.reason),
        ...opt('dry_run', cmd.dryRun),
      },
      { timeoutMs: REDACT_TIMEOUT_MS },
    )
    return fromWireRedact(r)
  }
}

/** A redaction rewrites the database file afterwards (VACUUM): it gets more than the default. */
const REDACT_TIMEOUT_MS = 600_000

/** A model-backed flush may run several model calls: it gets more than the client's default. */
const FLUSH_TIMEOUT_MS = 300_000
