/**
 * Strict decoders of the Python reference's stored payloads (Pydantic JSON bytes, docs/upgrade.md):
 * a `ContentSource`, a collection revision's `MemoryContent`, an entry version's refs, a source
 * cursor. Each returns the decoded value or throws `LegacyDecodeError` naming what it found; a
 * payload with a field this upgrade does not know is refused, never trimmed.
 */
import { createHash } from 'node:crypto'

import { canonicalJson } from '../../core/canonical.js'

/** A stored value the upgrade cannot read as the reference wrote it. */
export class LegacyDecodeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'LegacyDecodeError'
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Bytes of a BLOB column (drivers return Buffer; SQLite may hand back text). */
export function blobBytes(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return value
  if (typeof value === 'string') return new TextEncoder().encode(value)
  throw new LegacyDecodeError(`${what} is not stored as bytes`)
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new LegacyDecodeError(`${what} is not valid UTF-8`)
  }
  assertExactNumbers(text, what)
  try {
    return JSON.parse(text)
  } catch {
    throw new LegacyDecodeError(`${what} is not JSON`)
  }
}

/**
 * Python integers have no size limit; JavaScript numbers lose digits past 2^53. A payload holding
 * such an integer cannot be carried without changing it, so it is refused.
 */
function assertExactNumbers(text: string, what: string): void {
  const tokens = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g
  for (const m of text.matchAll(tokens)) {
    const t = m[0]
    if (t.startsWith('"') || !/^-?\d+$/.test(t)) continue
    if (!Number.isSafeInteger(Number(t))) {
      throw new LegacyDecodeError(`${what} holds the integer ${t}, beyond what is kept exactly`)
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function exactKeys(value: unknown, keys: readonly string[], what: string): Record<string, unknown> {
  if (!isObject(value)) throw new LegacyDecodeError(`${what} is not an object`)
  const extra = Object.keys(value).filter((k) => !keys.includes(k))
  if (extra.length > 0)
    throw new LegacyDecodeError(`${what} has unknown fields ${extra.join(', ')}`)
  return value
}

function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new LegacyDecodeError(`${what} is not a string`)
  return value
}

function nullableStr(value: unknown, what: string): string | null {
  return value === null || value === undefined ? null : str(value, what)
}

/** A captured `ContentSource` (`content` source type). */
export interface ReferenceContentSource {
  readonly content: string
  readonly metadata: Record<string, unknown>
}

/**
 * Decodes a `pc_sources.payload` of type `content`: `{name, materialization, description,
 * content, metadata}` with `name` equal to the source id, `materialization` `captured`, no
 * description (the reference's content adapter never sets one).
 */
export function decodeContentSource(bytes: Uint8Array, sourceId: string): ReferenceContentSource {
  const what = `source ${sourceId} payload`
  const p = exactKeys(
    parseJson(bytes, what),
    ['name', 'materialization', 'description', 'content', 'metadata'],
    what,
  )
  if (p['name'] !== sourceId) throw new LegacyDecodeError(`${what} names another source`)
  if (p['materialization'] !== 'captured')
    throw new LegacyDecodeError(`${what} is not a captured source`)
  if (p['description'] !== null && p['description'] !== undefined)
    throw new LegacyDecodeError(`${what} has a description, which has no place here`)
  const metadata = p['metadata'] ?? {}
  if (!isObject(metadata)) throw new LegacyDecodeError(`${what} metadata is not an object`)
  return { content: str(p['content'], `${what} content`), metadata }
}

/** One manifest entry of a collection revision. */
export interface ReferenceManifestEntry {
  readonly entryId: string
  readonly entryVersionId: string
  readonly entryContentHash: string
  readonly state: 'active' | 'inactive'
}

/** One entry change of a collection revision. */
export interface ReferenceChange {
  readonly op: 'add' | 'revise' | 'deactivate' | 'reactivate'
  readonly entryId: string
  readonly fromEntryVersionId: string | null
  readonly toEntryVersionId: string | null
  readonly reason: string | null
}

/** A collection revision's `MemoryContent` (`schema: powercontext.memory.v1`, `flat-v1`). */
export interface ReferenceMemoryContent {
  readonly entries: readonly ReferenceManifestEntry[]
  readonly changes: readonly ReferenceChange[]
}

const OPS = ['add', 'revise', 'deactivate', 'reactivate'] as const

/** Decodes a `pc_artifacts.content` of family `memory`. */
export function decodeMemoryContent(bytes: Uint8Array, what: string): ReferenceMemoryContent {
  const c = exactKeys(parseJson(bytes, what), ['manifest', 'changes', 'schema'], what)
  if (c['schema'] !== 'powercontext.memory.v1')
    throw new LegacyDecodeError(`${what} has the unknown schema ${String(c['schema'])}`)
  const m = exactKeys(c['manifest'], ['entries', 'format'], `${what} manifest`)
  if (m['format'] !== 'flat-v1')
    throw new LegacyDecodeError(`${what} has the unknown manifest format ${String(m['format'])}`)
  if (!Array.isArray(m['entries']) || !Array.isArray(c['changes'] ?? []))
    throw new LegacyDecodeError(`${what} manifest is malformed`)
  const entries = (m['entries'] as unknown[]).map((e, i): ReferenceManifestEntry => {
    const at = `${what} manifest entry ${i}`
    const o = exactKeys(e, ['entry_id', 'entry_version_id', 'entry_content_hash', 'state'], at)
    if (o['state'] !== 'active' && o['state'] !== 'inactive')
      throw new LegacyDecodeError(`${at} has the unknown state ${String(o['state'])}`)
    return {
      entryId: str(o['entry_id'], at),
      entryVersionId: str(o['entry_version_id'], at),
      entryContentHash: str(o['entry_content_hash'], at),
      state: o['state'],
    }
  })
  const changes = ((c['changes'] ?? []) as unknown[]).map((ch, i): ReferenceChange => {
    const at = `${what} change ${i}`
    const o = exactKeys(
      ch,
      ['op', 'entry_id', 'from_entry_version_id', 'to_entry_version_id', 'reason'],
      at,
    )
    if (!(OPS as readonly unknown[]).includes(o['op']))
      throw new LegacyDecodeError(`${at} has the unknown op ${String(o['op'])}`)
    const change: ReferenceChange = {
      op: o['op'] as ReferenceChange['op'],
      entryId: str(o['entry_id'], at),
      fromEntryVersionId: nullableStr(o['from_entry_version_id'], at),
      toEntryVersionId: nullableStr(o['to_entry_version_id'], at),
      reason: nullableStr(o['reason'], at),
    }
    const needsTo = change.op !== 'deactivate'
    const needsFrom = change.op === 'revise' || change.op === 'deactivate'
    if (
      (change.toEntryVersionId !== null) !== needsTo ||
      (change.fromEntryVersionId !== null) !== needsFrom
    )
      throw new LegacyDecodeError(`${at} (${change.op}) names the wrong versions`)
    return change
  })
  return { entries, changes }
}

/** A reference `SourceRef` as an entry version stores it. */
export interface ReferenceSourceRef {
  readonly sourceType: string
  readonly sourceId: string
}

/** Decodes `pc_memory_entry_versions.source_refs`: `[{source_type, source_id}]`. */
export function decodeSourceRefs(bytes: Uint8Array, what: string): ReferenceSourceRef[] {
  const v = parseJson(bytes, what)
  if (!Array.isArray(v)) throw new LegacyDecodeError(`${what} is not a list`)
  return v.map((r, i) => {
    const o = exactKeys(r, ['source_type', 'source_id'], `${what}[${i}]`)
    return { sourceType: str(o['source_type'], what), sourceId: str(o['source_id'], what) }
  })
}

/** Decodes `pc_memory_entry_versions.artifact_refs`: `[{family, artifact_id, revision}]`. */
export function decodeArtifactRefs(
  bytes: Uint8Array,
  what: string,
): { family: string; artifactId: string; revision: number }[] {
  const v = parseJson(bytes, what)
  if (!Array.isArray(v)) throw new LegacyDecodeError(`${what} is not a list`)
  return v.map((r, i) => {
    const o = exactKeys(r, ['family', 'artifact_id', 'revision'], `${what}[${i}]`)
    return {
      family: str(o['family'], what),
      artifactId: str(o['artifact_id'], what),
      revision: Number(o['revision']),
    }
  })
}

/** Decodes a `pc_source_cursors.cursor`: `{sequence}` (a non-negative integer). */
export function decodeCursor(bytes: Uint8Array, what: string): number {
  const o = exactKeys(parseJson(bytes, what), ['sequence'], what)
  const n = o['sequence'] ?? 0
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new LegacyDecodeError(`${what} sequence is not a non-negative integer`)
  return n
}

/** Domain prefix of the reference's entry content hash. */
const ENTRY_CONTENT_DOMAIN = 'powercontext:entry-content:v1'

/**
 * The reference's entry content hash: SHA-256 over its domain prefix, NUL and RFC 8785 JSON of
 * `{kind, text, source_refs, artifact_refs}` (strings NFC-normalised) — checked against the stored
 * hash so a damaged old row is found before it moves.
 */
export function referenceEntryHash(v: {
  kind: string
  text: string
  sourceRefs: readonly ReferenceSourceRef[]
  artifactRefs: readonly { family: string; artifactId: string; revision: number }[]
}): string {
  const bytes = canonicalJson({
    kind: v.kind,
    text: v.text,
    source_refs: v.sourceRefs.map((r) => ({ source_type: r.sourceType, source_id: r.sourceId })),
    artifact_refs: v.artifactRefs.map((r) => ({
      family: r.family,
      artifact_id: r.artifactId,
      revision: r.revision,
    })),
  })
  return createHash('sha256')
    .update(ENTRY_CONTENT_DOMAIN)
    .update('\u0000')
    .update(bytes)
    .digest('hex')
}
