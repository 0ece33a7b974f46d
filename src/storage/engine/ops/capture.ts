import { createHash, randomUUID } from 'node:crypto'

import { canonicalJson, canonicalJsonSliced } from '../../../core/canonical.js'
import { invalidRequest, PowerContextError } from '../../../core/errors.js'
import { timeSlicer } from '../../../core/event-loop-slices.js'
import { checkScopeId, checkSourceId } from '../../../core/ids.js'
import { leadingStringLiteral, withJsonText } from '../../../core/json-text.js'
import { refuseSourceSecrets, refuseSourceSecretsSliced } from '../../../core/secret-rules.js'
import { assertStorableString, normalizeTimestamp, utf8Length } from '../../../core/text-rules.js'
import type { DialectTx, SourceRow } from '../../spi/dialect-tx.js'
import type { WindowSource } from '../../spi/flush-types.js'
import {
  type CaptureSourceCommand,
  type CaptureSourceResult,
  MAX_CAPTURE_METADATA_VALUES,
  MAX_SOURCE_CONTENT_BYTES,
} from '../../spi/memory-backend.js'
import type { SourceBytesRow } from '../../spi/source-row.js'
import { insertSourceProjected } from './freshness.js'

const SOURCE_PAYLOAD_DOMAIN = 'powercontext:source-payload:v1'

/** A validated capture with its canonical payload and hash. */
export interface CheckedCapture {
  readonly scopeId: string
  readonly sourceId: string
  readonly payload: string
  readonly payloadHash: string
}

/**
 * Validates a capture and computes its canonical payload (canonical JSON, so metadata key order
 * never matters) and hash. Content or metadata carrying a credential is refused, not stored
 * with markers (docs/sources-and-flush.md).
 * @throws PowerContextError `invalid_request`, `secret_detected`
 */
export function checkCapture(cmd: CaptureSourceCommand): CheckedCapture {
  const fields = captureFields(cmd)
  refuseSourceSecrets(fields.content, fields.metadata)
  const parts = withDocument(fields, cmd)
  return withHash(parts, canonicalJson(parts.document, 'source'))
}

/**
 * {@link checkCapture} for a request: metadata holds at most
 * {@link MAX_CAPTURE_METADATA_VALUES} values, its strings are checked and the payload encoded
 * member by member with yields to the event loop. Same payload, hash and errors otherwise. (A
 * reference database's sources, upgraded through {@link checkCapture}, keep any metadata.)
 * @throws PowerContextError `invalid_request`, `payload_too_large` (metadata), `secret_detected`
 */
export async function checkCaptureSliced(cmd: CaptureSourceCommand): Promise<CheckedCapture> {
  const pause = timeSlicer()
  const fields = captureFields(cmd)
  if (valuesWithin(fields.metadata, MAX_CAPTURE_METADATA_VALUES) > MAX_CAPTURE_METADATA_VALUES)
    throw tooManyMetadataValues()
  await pause()
  await refuseSourceSecretsSliced(fields.content, fields.metadata, pause)
  const parts = withDocument(fields, cmd)
  return withHash(parts, await canonicalJsonSliced(parts.document, 'source', pause))
}

/** Metadata over {@link MAX_CAPTURE_METADATA_VALUES}: `payload_too_large`, naming the limit. */
export function tooManyMetadataValues(): PowerContextError {
  return new PowerContextError(
    'payload_too_large',
    `metadata holds more than ${MAX_CAPTURE_METADATA_VALUES} JSON values (object members and array items)`,
    { limit: 'metadata_values', max: MAX_CAPTURE_METADATA_VALUES },
  )
}

/** The object members plus array items `value` holds at any depth, counted until past `max`. */
function valuesWithin(value: unknown, max: number): number {
  let count = 0
  const open: unknown[] = [value]
  while (open.length > 0 && count <= max) {
    const v = open.pop()
    if (typeof v !== 'object' || v === null) continue
    const inner = Array.isArray(v) ? (v as unknown[]) : Object.values(v)
    count += inner.length
    open.push(...inner.slice(0, max + 1))
  }
  return count
}

function withHash(parts: { scopeId: string; sourceId: string }, payload: string): CheckedCapture {
  return {
    scopeId: parts.scopeId,
    sourceId: parts.sourceId,
    payload,
    payloadHash: sourcePayloadHash(payload),
  }
}

/** The checked ids, content, media type and metadata of a capture (secrets not yet looked for). */
function captureFields(cmd: CaptureSourceCommand) {
  const scopeId = checkScopeId(cmd.scopeId)
  const sourceId =
    cmd.sourceId === undefined
      ? `src_${randomUUID().replaceAll('-', '')}`
      : checkSourceId(cmd.sourceId)
  if (typeof cmd.content !== 'string' || cmd.content.trim().length === 0) {
    throw invalidRequest('content', 'must be a non-blank string')
  }
  assertStorableString('content', cmd.content)
  if (utf8Length(cmd.content) > MAX_SOURCE_CONTENT_BYTES) {
    throw invalidRequest('content', `must be at most ${MAX_SOURCE_CONTENT_BYTES} UTF-8 bytes`)
  }
  const mediaType = cmd.mediaType ?? 'text/plain'
  if (typeof mediaType !== 'string' || !/^[\x21-\x7E]{1,128}$/.test(mediaType)) {
    throw invalidRequest('media_type', 'must be a printable ASCII media type')
  }
  const metadata = cmd.metadata ?? {}
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw invalidRequest('metadata', 'must be a JSON object')
  }
  return { scopeId, sourceId, content: cmd.content, mediaType, metadata }
}

/** The fields with the document whose canonical JSON is the payload. */
function withDocument(fields: ReturnType<typeof captureFields>, cmd: CaptureSourceCommand) {
  const document = {
    content: fields.content,
    media_type: fields.mediaType,
    metadata: fields.metadata,
    occurred_at: normalizeTimestamp(cmd.occurredAt, 'occurred_at'),
  }
  return { scopeId: fields.scopeId, sourceId: fields.sourceId, document }
}

/** The hash of a source's canonical payload (it identifies a repeat of the same capture). */
export function sourcePayloadHash(payload: string): string {
  return createHash('sha256')
    .update(SOURCE_PAYLOAD_DOMAIN)
    .update('\u0000')
    .update(payload)
    .digest('hex')
}

/** Captures a source into the scope journal; idempotent on the same canonical payload. */
export async function captureInTx(
  tx: DialectTx,
  c: CheckedCapture,
  at: string,
): Promise<CaptureSourceResult> {
  const source = { name: 'content' as const, sourceId: c.sourceId }
  const existing = await tx.getSource(c.scopeId, 'content', c.sourceId)
  if (existing !== undefined) {
    // A repeat of a source an administrator erased is a repeat too: its hash still proves it.
    const repeat =
      existing.payloadHash === c.payloadHash &&
      (existing.payload === c.payload ||
        (await tx.redactions.ofSource(c.scopeId, 'content', c.sourceId)) !== undefined)
    if (!repeat) {
      throw new PowerContextError(
        'source_conflict',
        `source ${c.sourceId} already exists with different content`,
        { source_id: c.sourceId },
      )
    }
    return { status: 'accepted', source, position: existing.position, created: false }
  }
  const position = await tx.nextSourcePosition(c.scopeId)
  await insertSourceProjected(tx, {
    scopeId: c.scopeId,
    sourceType: 'content',
    sourceId: c.sourceId,
    position,
    payloadHash: c.payloadHash,
    payload: c.payload,
    createdAt: at,
  })
  return { status: 'accepted', source, position, created: true }
}

/** A stored source row with its canonical payload decoded (window sources). */
export function decodeSource(row: SourceRow): WindowSource {
  return Object.freeze(sourceOf(row, JSON.parse(row.payload) as StoredPayload))
}

/** Payloads over this many bytes keep their content as stored JSON text until it is read. */
const LAZY_CONTENT_BYTES = 64 * 1024

/** The canonical payload's first member (keys sorted): its content. */
const CONTENT_MEMBER = '{"content":'

/**
 * {@link decodeSource} of a row read as bytes (source reads). The content of a large payload is
 * neither decoded nor parsed here: it is when something reads it, and an answer copies its stored
 * bytes as they are (`withJsonText`).
 */
export function decodeSourceBytes(row: SourceBytesRow): WindowSource {
  const bytes = Buffer.from(row.payload.buffer, row.payload.byteOffset, row.payload.byteLength)
  const literal =
    bytes.length > LAZY_CONTENT_BYTES ? leadingStringLiteral(bytes, CONTENT_MEMBER) : undefined
  if (literal === undefined)
    return Object.freeze(sourceOf(row, JSON.parse(bytes.toString('utf8')) as StoredPayload))
  // After the content: `,"media_type":…}` (its other members) or `}`.
  const rest = bytes.toString('utf8', literal.end)
  const others = rest.startsWith(',') ? `{${rest.slice(1)}` : '{}'
  const source = sourceOf(row, { ...(JSON.parse(others) as StoredPayload), content: '' })
  return Object.freeze(withJsonText(source, 'content', literal.text))
}

/** A source payload as stored (canonical JSON of the capture's document). */
interface StoredPayload {
  content: string
  media_type: string
  metadata: Record<string, unknown>
  occurred_at: string | null
}

/** The decoded fields of a source row (not frozen: a caller may still keep its content as text). */
function sourceOf(row: Omit<SourceRow, 'payload'>, p: StoredPayload): WindowSource {
  return {
    sourceId: row.sourceId,
    position: row.position,
    content: p.content,
    mediaType: p.media_type,
    metadata: Object.freeze(p.metadata ?? {}),
    occurredAt: p.occurred_at ?? null,
    capturedAt: row.createdAt,
  }
}
