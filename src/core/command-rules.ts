import { normalizeArtifactRefs, normalizeSourceRefs } from './content-hash.js'
import { invalidRequest } from './errors.js'
import { checkMemoryId, checkRevision, checkSourceId } from './ids.js'
import type { ArtifactRef, MemoryState, SourceRef, SourceType } from './memory-model.js'
import { MEMORY_STATES, SOURCE_TYPES } from './memory-model.js'
import { normalizeKind } from './text-rules.js'

/**
 * Checks an integer option against its range, returning the default when absent.
 * @throws PowerContextError `invalid_request`
 */
export function checkLimit(
  value: unknown,
  field: string,
  range: { min: number; max: number; fallback: number },
): number {
  if (value === undefined) return range.fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw invalidRequest(field, 'must be an integer')
  }
  if (value < range.min || value > range.max) {
    throw invalidRequest(field, `must be between ${range.min} and ${range.max}`)
  }
  return value
}

/**
 * Source refs: `{name: "content", sourceId}` each; sorted and de-duplicated.
 * @throws PowerContextError `invalid_request`
 */
export function checkSourceRefs(value: unknown, field = 'sources'): SourceRef[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidRequest(field, 'must be an array')
  const refs = value.map((item: unknown, i): SourceRef => {
    const path = `${field}[${i}]`
    if (typeof item !== 'object' || item === null) throw invalidRequest(path, 'must be an object')
    const { name, sourceId } = item as { name?: unknown; sourceId?: unknown }
    if (!(SOURCE_TYPES as readonly unknown[]).includes(name)) {
      throw invalidRequest(`${path}.name`, `must be one of ${SOURCE_TYPES.join(', ')}`)
    }
    return { name: name as SourceType, sourceId: checkSourceId(sourceId, `${path}.source_id`) }
  })
  return normalizeSourceRefs(refs)
}

/**
 * Exact memory refs `{artifactId, revision}`; sorted and de-duplicated.
 * @throws PowerContextError `invalid_request`
 */
export function checkArtifactRefs(value: unknown, field = 'artifacts'): ArtifactRef[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw invalidRequest(field, 'must be an array')
  return normalizeArtifactRefs(
    value.map((item: unknown, i) => checkArtifactRef(item, `${field}[${i}]`)),
  )
}

/**
 * One exact memory ref.
 * @throws PowerContextError `invalid_request`
 */
export function checkArtifactRef(value: unknown, field = 'memory_ref'): ArtifactRef {
  if (typeof value !== 'object' || value === null) throw invalidRequest(field, 'must be an object')
  const { artifactId, revision } = value as { artifactId?: unknown; revision?: unknown }
  return {
    artifactId: checkMemoryId(artifactId, `${field}.artifact_id`),
    revision: checkRevision(revision, `${field}.revision`),
  }
}

/**
 * A state filter: a non-empty list of known states, de-duplicated.
 * @throws PowerContextError `invalid_request`
 */
export function checkStates(value: unknown, field = 'states'): MemoryState[] {
  if (value === undefined) return ['active']
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidRequest(field, 'must be a non-empty array')
  }
  for (const s of value) {
    if (!(MEMORY_STATES as readonly unknown[]).includes(s)) {
      throw invalidRequest(field, `must contain only ${MEMORY_STATES.join(', ')}`)
    }
  }
  return [...new Set(value as MemoryState[])]
}

/**
 * A kind filter: absent means all kinds; otherwise a non-empty list of kinds.
 * @throws PowerContextError `invalid_request`
 */
export function checkKinds(value: unknown, field = 'kinds'): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.length === 0 || value.length > 32) {
    throw invalidRequest(field, 'must be an array of 1–32 kinds')
  }
  return [...new Set(value.map((k: unknown, i) => normalizeKind(k, `${field}[${i}]`)))]
}

/**
 * An entry citation of the Python reference (its `MemoryCitation`), as a Handoff stored it before
 * an upgrade: the collection memory's id and revision, the entry id and the entry version id.
 */
export interface LegacyCitation {
  /** The old collection memory (the reference runtime's is `memory`). */
  readonly memoryArtifactId: string
  /** The collection revision the citation was taken at. */
  readonly memoryRevision: number
  readonly entryId: string
  readonly entryVersionId: string
}

/**
 * An old entry citation `{memoryRef: {family?, artifactId, revision}, entryId, entryVersionId}`;
 * the family, when given, must be `memory`; ids are printable ASCII of at most 128 characters.
 * @throws PowerContextError `invalid_request`
 */
export function checkLegacyCitation(value: unknown, field = 'legacy_citation'): LegacyCitation {
  if (typeof value !== 'object' || value === null) throw invalidRequest(field, 'must be an object')
  const c = value as { memoryRef?: unknown; entryId?: unknown; entryVersionId?: unknown }
  if (typeof c.memoryRef !== 'object' || c.memoryRef === null) {
    throw invalidRequest(`${field}.memory_ref`, 'must be an object')
  }
  const ref = c.memoryRef as { family?: unknown; artifactId?: unknown; revision?: unknown }
  if (ref.family !== undefined && ref.family !== 'memory') {
    throw invalidRequest(`${field}.memory_ref.family`, 'must be memory')
  }
  return {
    memoryArtifactId: checkMemoryId(ref.artifactId, `${field}.memory_ref.artifact_id`),
    memoryRevision: checkRevision(ref.revision, `${field}.memory_ref.revision`),
    entryId: checkMemoryId(c.entryId, `${field}.entry_id`),
    entryVersionId: checkMemoryId(c.entryVersionId, `${field}.entry_version_id`),
  }
}
