import { canonicalJson } from '../../core/canonical.js'
import {
  artifactRefJson,
  canonicalContent,
  hashCanonicalContent,
  sourceRefJson,
} from '../../core/content-hash.js'
import { PowerContextError } from '../../core/errors.js'
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

/** The hashed content of a stored version. */
export function contentOfRow(row: VersionRow): VersionContent {
  return {
    kind: row.kind,
    text: row.text,
    sources: decodeSources(row.sourcesJson),
    artifacts: decodeArtifacts(row.artifactsJson),
    observedAt: row.observedAt,
  }
}

/**
 * Problems of a stored version: its hash must match its canonical bytes and its refs must be
 * stored in canonical form. Empty when the row is sound.
 */
export function versionRowProblems(row: VersionRow): string[] {
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
  const content = contentOfRow(row)
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
 * True when the row's text was erased by an administrator: it reads as the marker and its stored
 * hash (kept as proof of history) no longer matches its bytes. `verify` also requires its record.
 */
export function isRedactedVersionRow(row: VersionRow): boolean {
  return (
    row.text === REDACTED_TEXT &&
    hashCanonicalContent(canonicalContent(contentOfRow(row))) !== row.contentHash
  )
}

/**
 * Decodes a stored version after verifying its hash against its bytes; a redacted version decodes
 * as its marker (`redacted`), never as text.
 * @throws PowerContextError `internal_error` when stored bytes no longer match their hash.
 */
export function decodeVersion(row: VersionRow): MemoryVersion {
  const problems = versionRowProblems(row)
  const redacted = problems.length > 0 && isRedactedVersionRow(row)
  if (problems.length > 0 && !redacted) {
    throw new PowerContextError(
      'internal_error',
      'stored memory version failed its integrity check',
      {
        memory_id: row.memoryId,
        revision: row.version,
      },
    )
  }
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
  return toMemory(decodeVersion(version), row.state, row.mergedInto, redaction)
}
