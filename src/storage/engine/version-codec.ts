import { canonicalJson } from '../../core/canonical.js'
import {
  artifactRefJson,
  canonicalContent,
  hashCanonicalContent,
  sourceRefJson,
} from '../../core/content-hash.js'
import type {
  ArtifactRef,
  Memory,
  MemoryVersion,
  SourceRef,
  VersionContent,
} from '../../core/memory-model.js'
import { toMemory } from '../../core/memory-model.js'
import { REDACTED_TEXT, type RedactionInfo } from '../../core/redaction.js'
import type { MemoryRow, VersionRow } from '../spi/dialect-tx.js'
import {
  damagedRow,
  memoryKeyProblems,
  printable,
  requireSound,
  rowName,
  versionKeyProblems,
} from './row-damage.js'

/** Canonical JSON text of source refs, as stored. */
export function encodeSources(refs: readonly SourceRef[]): string {
  return canonicalJson(refs.map(sourceRefJson), 'sources')
}

/** Canonical JSON text of artifact refs, as stored. */
export function encodeArtifacts(refs: readonly ArtifactRef[]): string {
  return canonicalJson(refs.map(artifactRefJson), 'artifacts')
}

function decodeSources(json: string): SourceRef[] {
  return (JSON.parse(json) as { name: 'content'; source_id: string }[]).map((r) => ({
    name: r.name,
    sourceId: r.source_id,
  }))
}

function decodeArtifacts(json: string): ArtifactRef[] {
  return (JSON.parse(json) as { artifact_id: string; revision: number }[]).map((r) => ({
    artifactId: r.artifact_id,
    revision: r.revision,
  }))
}

/**
 * The hashed content of a stored version, verified first (writers build on it); a redacted
 * version gives its marker text.
 * @throws PowerContextError `storage_unavailable` (`corrupt`) when the row is damaged.
 */
export function contentOfRow(row: VersionRow): VersionContent {
  const problems = versionRowProblems(row)
  if (problems.length > 0 && !isRedactedVersionRow(row))
    requireSound(rowName.version(row.memoryId, row.version), problems)
  return rawContentOfRow(row)
}

/** The hashed content of a stored version as it reads (JSON errors thrown as they come). */
function rawContentOfRow(row: VersionRow): VersionContent {
  return {
    kind: row.kind,
    text: row.text,
    sources: decodeSources(row.sourcesJson),
    artifacts: decodeArtifacts(row.artifactsJson),
    observedAt: row.observedAt,
  }
}

/**
 * Problems of a stored version: well-formed keys, its hash must match its canonical bytes and its
 * refs must be stored in canonical form. Empty when the row is sound; never throws.
 */
export function versionRowProblems(row: VersionRow): string[] {
  const keys = versionKeyProblems(row)
  if (keys.length > 0)
    return keys.map((p) => `version ${printable(row.memoryId)}@${row.version}: ${p}`)
  const key = soundKey(row)
  if (SOUND_ROWS.has(key)) return []
  const problems = checkVersionRow(row)
  if (problems.length === 0) rememberSound(key)
  return problems
}

/**
 * Rows already found sound, keyed by ALL their hashed bytes (so any changed byte misses the cache
 * and is checked again). Versions are immutable, and re-hashing the same 32 search candidates on
 * every query was most of the re-check cost. Bounded; oldest entries are dropped first.
 */
const SOUND_ROWS = new Set<string>()
const SOUND_ROWS_MAX = 20_000

function soundKey(row: VersionRow): string {
  return [
    row.contentHash,
    row.kind,
    row.text,
    row.sourcesJson,
    row.artifactsJson,
    row.observedAt ?? '\u0001',
  ].join('\u0000')
}

/** Drops every cached key (after a redaction: the keys hold the erased text). */
export function forgetSoundRows(): void {
  SOUND_ROWS.clear()
}

function rememberSound(key: string): void {
  if (SOUND_ROWS.size >= SOUND_ROWS_MAX) {
    const oldest = SOUND_ROWS.values().next()
    if (oldest.done !== true) SOUND_ROWS.delete(oldest.value)
  }
  SOUND_ROWS.add(key)
}

function checkVersionRow(row: VersionRow): string[] {
  const problems: string[] = []
  let content: VersionContent
  try {
    content = rawContentOfRow(row)
  } catch {
    return [`version ${row.memoryId}@${row.version}: sources or artifacts are not valid JSON`]
  }
  if (hashCanonicalContent(canonicalContent(content)) !== row.contentHash) {
    problems.push(`version ${row.memoryId}@${row.version}: content hash does not match its bytes`)
  }
  if (encodeSources(content.sources) !== row.sourcesJson) {
    problems.push(`version ${row.memoryId}@${row.version}: sources are not canonical`)
  }
  if (encodeArtifacts(content.artifacts) !== row.artifactsJson) {
    problems.push(`version ${row.memoryId}@${row.version}: artifacts are not canonical`)
  }
  return problems
}

/**
 * True when the row's text was erased by an administrator: it reads as the marker, its keys are
 * sound, and its stored hash (kept as proof of history) no longer matches its bytes. `verify` also
 * requires its record.
 */
export function isRedactedVersionRow(row: VersionRow): boolean {
  if (row.text !== REDACTED_TEXT || versionKeyProblems(row).length > 0) return false
  try {
    return hashCanonicalContent(canonicalContent(rawContentOfRow(row))) !== row.contentHash
  } catch {
    return false
  }
}

/**
 * Decodes a stored version after verifying its keys and its hash against its bytes; a redacted
 * version decodes as its marker (`redacted`), never as text.
 * @throws PowerContextError `storage_unavailable` (`details.reason` `corrupt`, `details.row`)
 *   when the stored row is damaged.
 */
export function decodeVersion(row: VersionRow): MemoryVersion {
  const redacted = isRedactedVersionRow(row)
  const content = contentOfRow(row)
  return Object.freeze({
    ...content,
    sources: Object.freeze(content.sources),
    artifacts: Object.freeze(content.artifacts),
    memoryId: row.memoryId,
    scopeId: row.scopeId,
    version: row.version,
    previousVersion: row.previousVersion,
    contentHash: row.contentHash,
    createdAt: row.createdAt,
    operation: row.operation,
    operationId: row.operationId,
    reason: row.reason,
    ...(redacted ? { redacted: true } : {}),
  })
}

/**
 * The caller view of a stored version under the memory's current state; `redaction` says when and
 * why a redacted version was erased (see `redaction/redaction-reads.ts`).
 */
export function viewOf(
  version: VersionRow,
  row: MemoryRow,
  redaction: RedactionInfo | null = null,
): Memory {
  requireSound(rowName.memory(row.memoryId), memoryKeyProblems(row))
  if (version.memoryId !== row.memoryId || version.scopeId !== row.scopeId) {
    throw damagedRow(
      rowName.version(version.memoryId, version.version),
      `its keys do not match memory ${printable(row.memoryId)}`,
    )
  }
  return toMemory(decodeVersion(version), row.state, row.mergedInto, redaction)
}
