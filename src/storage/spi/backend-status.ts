/** What a backend reports about itself: capabilities, health, vector status, maintenance reports. */
import type { EmbeddingProfile } from '../../core/embedding.js'
import type { SearchMode } from './search-types.js'

export interface VerifyOptions {
  /** SQLite: run the full `PRAGMA integrity_check` instead of `quick_check`. Default false. */
  readonly full?: boolean | undefined
}

export interface VerifyReport {
  readonly ok: boolean
  readonly problems: readonly string[]
  readonly counts: {
    readonly memories: number
    readonly versions: number
    readonly heads: number
    readonly changes: number
    /** Vector rows (when the backend has a vector projection). */
    readonly vectors?: number
    /** Active heads without a valid vector: allowed after a model outage, filled by `reindex`. */
    readonly missingVectors?: number
  }
}

export interface RebuildReport {
  readonly heads: number
  /** Vectors re-embedded after the rebuild (0 without an embedding model). */
  readonly vectors?: number
}

/** What a backend can do; base defaults, adapters override. */
export interface BackendCapabilities {
  /** Full-text search can run (false when the backend's full-text probe failed). */
  readonly fts: boolean
  /** Vector and hybrid search can run (index, model and matching profile); per-scope completeness is checked per search. */
  readonly vector: boolean
  /** The database's profile when `vector` is true, else null. */
  readonly embeddingProfile: EmbeddingProfile | null
  /**
   * The search modes that can run, derived from `fts` and `vector` (docs/search.md, "Modes"):
   * `auto, fts` with full-text search, plus `vector, hybrid` with vectors; without full-text
   * search `auto, vector` with vectors, else none. A mode not listed is refused.
   */
  readonly searchModes: readonly SearchMode[]
  /** The database cluster this node belongs to (as last probed), or null/absent for one server. */
  readonly cluster?: ClusterStatus | null
}

/** A database cluster node (MariaDB Galera) as it last reported itself. */
export interface ClusterStatus {
  readonly kind: 'galera'
  /** Nodes in this node's component. */
  readonly size: number
  /** This node's state (`Synced`, `Joining`, `Donor/Desynced`, …). */
  readonly nodeState: string
  /** True when this node is in the primary component. */
  readonly primary: boolean
}

/** Live health of the storage, for readiness: `ready` false makes the server not ready. */
export interface StorageHealth {
  readonly ready: boolean
  /** Readiness checks (e.g. `cluster`: `ready` or `unavailable: <reason>`). */
  readonly checks: Readonly<Record<string, string>>
}

/** What background index upkeep reports (the server logs it): work done, or a failure. */
export interface IndexMaintenanceEvents {
  readonly onDone?: (report: {
    readonly index: string
    readonly steps: number
    readonly ms: number
    /** The longest single step, ms (each holds the event loop). */
    readonly longestStepMs: number
  }) => void
  readonly onError?: (err: unknown) => void
  /**
   * Damage found by the background damage check (SQLite: `integrity_check` and a key scan in a
   * worker thread, docs/storage.md#damage-verify-and-salvage); readiness reports it from then on.
   */
  readonly onDamage?: (problems: readonly string[]) => void
  /** Period of the background damage check. Default 10 minutes (the first runs at once); 0: off. */
  readonly damageCheckIntervalMs?: number
}

/**
 * The vector side of a backend: `not_configured` (no embedding model), `ready`, `misconfigured`
 * (the model's profile differs from the one fixed in the database) or `unavailable` (no vector
 * index, e.g. the extension did not load).
 */
export interface VectorStatus {
  readonly state: 'not_configured' | 'ready' | 'misconfigured' | 'unavailable'
  /** Why vectors cannot be used; null when ready or not configured. */
  readonly reason: string | null
  /** The configured model's profile (whatever the state), or null without a model. */
  readonly profile: EmbeddingProfile | null
  /** The profile fixed in the database, or null while none was ever configured. */
  readonly storedProfile: EmbeddingProfile | null
  /** Some active memory may lack its vector (unknown at open; writes during a model outage). */
  readonly backlog: boolean
  /** The model failed recently; writes skip embedding until this time (ISO), else null. */
  readonly coolingDownUntil: string | null
}

/** Options of `reindex`. */
export interface ReindexOptions {
  /** Texts per embedding request and write transaction (1–1024, default 64). */
  readonly batchSize?: number
  /** Told after every scanned page of heads (the running totals so far); never awaited. */
  readonly onProgress?: (progress: ReindexReport) => void
}

/** What `reindex` did. */
export interface ReindexReport {
  /** Active heads examined. */
  readonly scanned: number
  /** Vectors written (missing or stale ones). */
  readonly embedded: number
  /** Heads still without a valid vector (model failure or concurrent change). */
  readonly remaining: number
  /** The model failure that stopped the run, or null. */
  readonly error: { readonly code: string; readonly message: string } | null
}
