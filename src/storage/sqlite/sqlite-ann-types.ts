import type * as HnswlibModule from 'hnswlib-node'

/** The hnswlib binding, loaded on demand (a native addon: a failed build must not stop a backend). */
export type Hnswlib = typeof HnswlibModule

/**
 * Loads hnswlib; the reason when it cannot be loaded (graphs are then off and every vector search
 * is exact). Never throws.
 */
export async function loadHnswlib(
  specifier = 'hnswlib-node',
): Promise<{ hnswlib?: Hnswlib; problem?: string }> {
  try {
    const loaded = (await import(specifier)) as Hnswlib & { default?: Hnswlib }
    return { hnswlib: loaded.default ?? loaded }
  } catch (err) {
    return { problem: `vector graphs unavailable: ${(err as Error).message}` }
  }
}

/**
 * Approximate nearest-neighbour search for large scopes on the SQLite backend: one in-memory HNSW
 * graph per scope (hnswlib), built in the background from the vector index and kept in step with
 * it through `memory_vector_log`. It is a cache of the database, never a source of truth: every
 * answer goes through the same metadata join and authoritative re-check as an exact KNN, a scope
 * without a ready graph is searched exactly, and a graph that cannot be brought up to date is
 * dropped and built again.
 */
export interface AnnSettings {
  /** A scope gets a graph once it holds this many vectors (below it, exact KNN is cheap). */
  readonly minVectors: number
  /** HNSW links per node. */
  readonly m: number
  /** HNSW candidate list size while inserting. */
  readonly efConstruction: number
  /** HNSW candidate list size while searching (at least the requested k). */
  readonly efSearch: number
}

/** Defaults measured on 384-dimension vectors (docs/benchmarks.md, "Search at scale"). */
export const ANN_DEFAULTS: AnnSettings = Object.freeze({
  minVectors: 20_000,
  m: 16,
  efConstruction: 100,
  efSearch: 400,
})

/** One vector as read from the index: its head's projection id and memory. */
export interface AnnVectorRow {
  readonly projectionId: number
  readonly memoryId: string
  readonly embedding: Buffer
}

/** Where `memory_vector_log` stands, and the vector epoch (bumped by rebuild/reindex). */
export interface AnnStamp {
  readonly epoch: number
  /** The last sequence number the log has handed out (0 when none). */
  readonly logSeq: number
  /** The oldest entry still kept (null when the log is empty). */
  readonly minLogSeq: number | null
}

/** The reads the graphs need, over one connection inside a read transaction (SQL lives there). */
export interface AnnReader {
  stamp(): AnnStamp
  vectorCount(scopeId: string): number
  /** Vectors of the scope with projection id > `after`, in projection id order. */
  page(scopeId: string, after: number, limit: number): AnnVectorRow[]
  /** Log entries of the scope after `seq`, oldest first. */
  logAfter(scopeId: string, seq: number, limit: number): { seq: number; memoryId: string }[]
  /** The current vectors of these memories (absent: the memory has none now). */
  vectorsOf(memoryIds: readonly string[]): AnnVectorRow[]
  /** The database's random identity (saved graphs name it). */
  databaseId(): string
  /** The memory of log entry `seq`, if the log still holds it. */
  logMemoryAt(seq: number): string | undefined
}

/** Runs `work` in a read transaction of the backend's connection, between its other work. */
export type AnnReadRunner = <T>(work: (reader: AnnReader) => T) => Promise<T>

/** What a graph holds and how it was built, for status and benchmarks. */
export interface AnnScopeStatus {
  readonly state: 'building' | 'ready'
  readonly vectors: number
  readonly buildMs: number | null
  /** Loaded from the saved graph rather than built. */
  readonly loaded: boolean
  /** Searches the graph answered. */
  readonly searches: number
}
