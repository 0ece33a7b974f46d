import { createHash } from 'node:crypto'

import { canonicalJson } from './canonical.js'
import { invalidRequest, PowerContextError } from './errors.js'

/** Vector distances a profile may use; MVP conformance is L2 only. */
export const EMBEDDING_DISTANCES = ['l2'] as const
export type EmbeddingDistance = (typeof EMBEDDING_DISTANCES)[number]
/** Normalisations a profile may use; vector indexes here need true unit vectors. */
export const EMBEDDING_NORMALIZATIONS = ['unit'] as const
export type EmbeddingNormalization = (typeof EMBEDDING_NORMALIZATIONS)[number]

/** Largest dimension accepted (sqlite-vec's own limit is 8192). */
export const EMBEDDING_MAX_DIMENSION = 8192
/** Vector admission: cosine similarity (from unit-vector L2 distance) must reach this, as in the Python reference. */
export const VECTOR_MIN_COSINE = 0.3
/** Domain prefix of an embedding content hash; changing it is a migration. */
export const EMBEDDING_CONTENT_DOMAIN = 'powercontext:embedding-content:v1'

/**
 * The one embedding profile of a database (docs/storage.md): fixed when it is first configured and never
 * changed. A model configured with any other profile gets no vector capability.
 */
export interface EmbeddingProfile {
  /** Stable deployment-chosen id (printable ASCII, 1–128). */
  readonly profileId: string
  /** The model id as the embedding endpoint names it. */
  readonly model: string
  /** Exact vector length, 1–8192. */
  readonly dimension: number
  readonly distance: EmbeddingDistance
  readonly normalization: EmbeddingNormalization
}

/**
 * An embedding model bound to one profile. Implementations return one raw vector per input text,
 * in input order; callers normalise and validate with {@link normalizeEmbedding}.
 * @throws PowerContextError `inference_unavailable`, `inference_timeout`, `invalid_inference_output`.
 */
export interface Embedder {
  readonly profile: EmbeddingProfile
  embed(texts: readonly string[]): Promise<number[][]>
}

/**
 * Builds a frozen L2/unit profile from its configurable parts.
 * @throws PowerContextError `invalid_request` for a bad id, model (blank, over 256 characters, a
 *   lone surrogate) or dimension.
 */
export function makeEmbeddingProfile(p: {
  readonly profileId: string
  readonly model: string
  readonly dimension: number
}): EmbeddingProfile {
  if (typeof p.profileId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(p.profileId)) {
    throw invalidRequest('embedding.profile_id', 'must be 1–128 printable ASCII characters')
  }
  if (typeof p.model !== 'string' || p.model.trim() === '' || p.model.length > 256) {
    throw invalidRequest(
      'embedding.model',
      'must be a non-blank model id of at most 256 characters',
    )
  }
  // A model id is part of every embedding hash (canonical JSON), which refuses lone surrogates.
  if (!p.model.isWellFormed()) throw invalidRequest('embedding.model', 'contains a lone surrogate')
  if (!Number.isInteger(p.dimension) || p.dimension < 1 || p.dimension > EMBEDDING_MAX_DIMENSION) {
    throw invalidRequest('embedding.dimension', `must be an integer 1–${EMBEDDING_MAX_DIMENSION}`)
  }
  return Object.freeze({
    profileId: p.profileId,
    model: p.model,
    dimension: p.dimension,
    distance: 'l2',
    normalization: 'unit',
  })
}

/** True when two profiles are the same profile (every field equal). */
export function sameProfile(a: EmbeddingProfile, b: EmbeddingProfile): boolean {
  return (
    a.profileId === b.profileId &&
    a.model === b.model &&
    a.dimension === b.dimension &&
    a.distance === b.distance &&
    a.normalization === b.normalization
  )
}

/** `profile_id (model, dimension, distance, normalization)`, for messages and readiness. */
export function describeProfile(p: EmbeddingProfile): string {
  return `${p.profileId} (${p.model}, ${p.dimension}, ${p.distance}, ${p.normalization})`
}

/** The profile in canonical (wire and hash) form. */
export function profileJson(p: EmbeddingProfile) {
  return {
    profile_id: p.profileId,
    model: p.model,
    dimension: p.dimension,
    distance: p.distance,
    normalization: p.normalization,
  }
}

function badVector(reason: string, message: string): PowerContextError {
  return new PowerContextError('invalid_inference_output', `embedding rejected: ${message}`, {
    reason,
  })
}

/**
 * Validates and unit-normalises one model vector for `profile`, as the Python reference does: every component
 * finite, exactly `profile.dimension` components, then divided by the largest magnitude (so huge
 * values cannot overflow) and by the L2 norm. Never writes a placeholder: a bad vector is an error.
 * @throws PowerContextError `invalid_inference_output` (`details.reason`: `not_a_vector`,
 *   `non_finite`, `dimension`, `zero_vector`).
 */
export function normalizeEmbedding(
  vector: ArrayLike<unknown>,
  profile: EmbeddingProfile,
): readonly number[] {
  if (vector === null || typeof vector !== 'object' || typeof vector.length !== 'number') {
    throw badVector('not_a_vector', 'not an array of numbers')
  }
  if (vector.length !== profile.dimension) {
    throw badVector('dimension', `expected ${profile.dimension} dimensions, got ${vector.length}`)
  }
  const values = new Array<number>(vector.length)
  let max = 0
  for (let i = 0; i < vector.length; i += 1) {
    const v = vector[i]
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw badVector('non_finite', `component ${i} is not a finite number`)
    }
    values[i] = v
    max = Math.max(max, Math.abs(v))
  }
  if (max === 0) throw badVector('zero_vector', 'the zero vector has no direction')
  let norm = 0
  for (let i = 0; i < values.length; i += 1) {
    const scaled = (values[i] as number) / max
    values[i] = scaled
    norm += scaled * scaled
  }
  norm = Math.sqrt(norm)
  for (let i = 0; i < values.length; i += 1) values[i] = (values[i] as number) / norm
  return Object.freeze(values)
}

/**
 * `embedding_content_hash` (the Python reference's): SHA-256 over the domain prefix, NUL and the JCS of
 * `{profile: {profile_id, model, dimension, distance, normalization}, content_hash}`. It proves a
 * vector belongs to exactly this content under exactly this profile.
 */
export function embeddingHash(profile: EmbeddingProfile, contentHash: string): string {
  const body = canonicalJson(
    { profile: profileJson(profile), content_hash: contentHash },
    'embedding',
  )
  return createHash('sha256')
    .update(EMBEDDING_CONTENT_DOMAIN)
    .update('\u0000')
    .update(body, 'utf8')
    .digest('hex')
}

/**
 * A fast {@link embeddingHash} for one profile and many 64-hex content hashes (completeness checks
 * over whole scopes). JCS puts `content_hash` before `profile`, and a hex digest needs no escaping,
 * so the canonical text is a fixed prefix + hash + fixed suffix; other inputs take the slow path.
 */
export function embeddingHasher(profile: EmbeddingProfile): (contentHash: string) => string {
  const head = `${EMBEDDING_CONTENT_DOMAIN}\u0000{"content_hash":"`
  const tail = `","profile":${canonicalJson(profileJson(profile), 'profile')}}`
  return (contentHash) =>
    /^[0-9a-f]{64}$/.test(contentHash)
      ? createHash('sha256').update(`${head}${contentHash}${tail}`, 'utf8').digest('hex')
      : embeddingHash(profile, contentHash)
}

/**
 * Cosine similarity of two unit vectors from their L2 distance: `1 − d²/2`, clamped to [−1, 1].
 * A missing or non-finite distance has no similarity (null).
 */
export function cosineFromL2(distance: number | null | undefined): number | null {
  if (distance === null || distance === undefined || !Number.isFinite(distance)) return null
  return Math.min(1, Math.max(-1, 1 - (distance * distance) / 2))
}

/** Vector admission: cosine from L2 ≥ {@link VECTOR_MIN_COSINE}; a null distance is rejected. */
export function admitsVector(distance: number | null | undefined): boolean {
  const cosine = cosineFromL2(distance)
  return cosine !== null && cosine >= VECTOR_MIN_COSINE
}
