import type { EmbeddingProfile } from '../../core/embedding.js'

/** The vector row of one head: which version, content and profile the embedding belongs to. */
export interface VectorRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly version: number
  readonly kind: string
  readonly contentHash: string
  readonly embeddingHash: string
  /** Unit vector of the profile's dimension. */
  readonly vector: readonly number[]
}

/** A raw nearest-neighbour hit in backend order (nearest first); the base class re-checks it. */
export interface VectorHit {
  readonly memoryId: string
  readonly version: number
  readonly contentHash: string
  readonly embeddingHash: string
  /** L2 distance between unit vectors; null when the index gave none. */
  readonly distance: number | null
}

/** The order of vector hits (the Python reference's): nearest first, a missing distance last, then memory id. */
export function nearestFirst(a: VectorHit, b: VectorHit): number {
  return (
    (a.distance ?? Infinity) - (b.distance ?? Infinity) ||
    (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0)
  )
}

/** One head of a scope and its vector metadata (null fields: the head has no vector row). */
export interface HeadVectorState {
  readonly memoryId: string
  readonly version: number
  readonly contentHash: string
  readonly vectorVersion: number | null
  readonly vectorContentHash: string | null
  readonly embeddingHash: string | null
}

/** The stored profile and the vector epoch (bumped by reindex and rebuild; a cache key). */
export interface StoredEmbeddingProfile {
  readonly profile: EmbeddingProfile
  readonly epoch: number
}

/**
 * Row verbs of an adapter's vector projection (docs/search.md): SQL only, no decision. The
 * base class decides what to write and re-checks everything it reads. `DialectTx.vectors` is
 * undefined for an adapter without any vector support.
 */
export interface VectorTx {
  /** Why the vector index cannot be written or searched (e.g. extension not loaded); null when it can. */
  readonly indexProblem: string | null
  getProfile(): Promise<StoredEmbeddingProfile | undefined>
  /** Stores the database's profile; only called when none is stored. */
  insertProfile(profile: EmbeddingProfile, at: string): Promise<void>
  /** Invalidates completeness caches of every process (reindex, rebuild). */
  bumpEpoch(): Promise<void>
  /** Replaces the vector row of the memory's head (which must exist). */
  putVector(row: VectorRow): Promise<void>
  /** Removes the vector row of one memory's head; no-op when absent. */
  deleteVector(memoryId: string): Promise<void>
  /** Nearest heads of the scope to `vector` (optionally of these kinds), nearest first. */
  searchVectors(q: {
    scopeId: string
    vector: readonly number[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<VectorHit[]>
  /** Active heads of the scope, and vector rows of the scope (completeness by count). */
  vectorCounts(scopeId: string): Promise<{ heads: number; vectors: number }>
  /**
   * The content hash and stored embedding hash of every head of the scope whose vector row has
   * the head's version and content hash (completeness compares the embedding hashes).
   */
  matchingVectorHashes(scopeId: string): Promise<{ contentHash: string; embeddingHash: string }[]>
  /** Heads with their vector metadata, filtered by scope and/or memory ids (at least one given). */
  headVectors(q: {
    readonly scopeId?: string | undefined
    readonly memoryIds?: readonly string[] | undefined
  }): Promise<HeadVectorState[]>
  /** Keyset page over every head of every scope (memory id order), for reindex and verify. */
  headVectorPage(after: string, limit: number): Promise<(HeadVectorState & { scopeId: string })[]>
  /** Index-level problems: vector rows without metadata, metadata without vector rows, … */
  checkVectorIndex(): Promise<string[]>
}
