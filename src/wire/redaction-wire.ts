/*
 * Wire ↔ domain mappers of the administrative erase (`POST /v1/admin/redact`, docs/storage.md
 * "Redaction") and of the redaction marks reads carry.
 */
import type { components } from '../contract/powercontext-types.js'
import type { RedactionInfo } from '../core/redaction.js'
import type {
  RedactCommand,
  RedactedItem,
  RedactionEntry,
  RedactResult,
} from '../storage/spi/redaction-types.js'

type Wire = components['schemas']

const toRef = (r: { artifactId: string; revision: number } | null) =>
  r === null ? null : { artifact_id: r.artifactId, revision: r.revision }
const fromRef = (r: Wire['ArtifactRef'] | null | undefined) =>
  r === null || r === undefined
    ? null
    : Object.freeze({ artifactId: r.artifact_id, revision: r.revision })

/** When and why a stored text was erased, on the wire. */
export const toWireRedaction = (r: RedactionInfo): Wire['Redaction'] => ({
  redacted_at: r.redactedAt,
  reason: r.reason,
  rule: r.rule,
})

/** A change-feed redaction on the wire. */
export const toWireRedactionEntry = (e: RedactionEntry): Wire['RedactionEntry'] => ({
  seq: e.seq,
  target: e.target,
  source_id: e.sourceId,
  memory_ref: toRef(e.memoryRef),
  record_id: e.recordId,
  rule: e.rule,
  reason: e.reason,
  redacted_at: e.redactedAt,
  operation_id: e.operationId,
})

/** A redact request as the SPI command (exactly-one-target is the domain's check). */
export const fromWireRedactRequest = (b: Wire['RedactRequest']): RedactCommand => ({
  scopeId: b.scope_id,
  target: {
    ...(b.source_id === undefined ? {} : { sourceId: b.source_id }),
    ...(b.memory_ref === undefined ? {} : { memoryRef: fromRef(b.memory_ref) ?? undefined }),
    ...(b.record_id === undefined ? {} : { recordId: b.record_id }),
    ...(b.scan === undefined ? {} : { scan: b.scan }),
  } as RedactCommand['target'],
  reason: b.reason,
  dryRun: b.dry_run,
})

const toWireItem = (i: RedactedItem): Wire['RedactedItem'] => ({
  target: i.target,
  source_id: i.sourceId,
  memory_ref: toRef(i.memoryRef),
  record_id: i.recordId,
  rule: i.rule,
  fields: [...i.fields],
  status: i.status,
  seq: i.seq,
})

/** A redaction's result on the wire. */
export const toWireRedact = (r: RedactResult): Wire['RedactResponse'] => ({
  dry_run: r.dryRun,
  items: r.items.map(toWireItem),
  erasure:
    r.erasure === null
      ? null
      : {
          files_clean: r.erasure.filesClean,
          steps: [...r.erasure.steps],
          pending: r.erasure.pending,
          ms: r.erasure.ms,
        },
})
