/**
 * What an upgrade from the Python reference hands the base backend for one scope
 * (docs/upgrade.md): a stream of steps decoded from the old tables, in the order they happened.
 * The base class checks every step against the rules of this runtime and writes it in one
 * transaction per scope (`DatabaseMemoryBackend.importLegacyScope`).
 */
import type { LegacyUpgradeRow } from './legacy-tx.js'

/** One version of an old entry, as the reference stored it. */
export interface LegacyEntryVersion {
  readonly entryVersionId: string
  /** 1-based per entry. */
  readonly version: number
  readonly previousVersionId: string | null
  readonly kind: string
  readonly text: string
  /** Ids of the `content` sources the version cites (its `source_refs`). */
  readonly sourceIds: readonly string[]
  /** The collection revision that created it. */
  readonly createdInRevision: number
}

/** One entry change of an old collection revision (the reference's four ops). */
export type LegacyChange =
  | {
      readonly op: 'add' | 'revise'
      readonly entryId: string
      readonly version: LegacyEntryVersion
      readonly reason: string | null
    }
  | {
      readonly op: 'deactivate' | 'reactivate'
      readonly entryId: string
      readonly entryVersionId: string
      readonly reason: string | null
    }

/** One step of a scope's upgrade. */
export type LegacyStep =
  /** A captured source at its journal position, with its payload decoded and its original bytes. */
  | {
      readonly type: 'source'
      readonly sourceId: string
      readonly position: number
      readonly content: string
      readonly metadata: Readonly<Record<string, unknown>>
      readonly originalPayload: Uint8Array
    }
  /** One revision of an old collection memory: its entry changes, in the stored order. */
  | {
      readonly type: 'revision'
      readonly memoryArtifactId: string
      readonly revision: number
      readonly changes: readonly LegacyChange[]
    }
  /** The collection's head manifest, which the replayed revisions must reproduce exactly. */
  | {
      readonly type: 'head'
      readonly memoryArtifactId: string
      readonly revision: number
      readonly entries: readonly {
        readonly entryId: string
        readonly entryVersionId: string
        readonly state: 'active' | 'inactive'
      }[]
      /** Entry versions the old table holds for this collection (each must have been replayed). */
      readonly versionCount: number
    }
  /** The reference's memory flush cursor (`memory-source-window`). */
  | { readonly type: 'cursor'; readonly position: number }

/** What one scope's upgrade moved. */
export interface LegacyScopeCounts {
  readonly sources: number
  readonly memories: number
  readonly versions: number
  /** Memories whose entry was inactive at the head. */
  readonly forgotten: number
  readonly changes: number
  readonly citations: number
  /** The carried-over cursor position, or null when the scope had none. */
  readonly cursor: number | null
}

/** One scope to upgrade. */
export interface LegacyScopeImport {
  /** The scope here (the old id, or its `--map-scope` replacement). */
  readonly scopeId: string
  readonly legacyScopeId: string
  /** The reference database (file path or redacted URL), recorded with the scope. */
  readonly origin: string
  /** SHA-256 over the old scope's state (recorded; a rerun compares it). */
  readonly fingerprint: string
  /** Opens the scope's steps; called again if the transaction is retried. */
  readonly steps: () => AsyncIterable<LegacyStep>
  /** Called as versions and sources are written (progress lines). */
  readonly onProgress?: (done: { readonly sources: number; readonly versions: number }) => void
}

/** The outcome of one scope: upgraded now, or found upgraded by an earlier run (nothing written). */
export interface LegacyScopeResult {
  readonly status: 'upgraded' | 'already'
  readonly upgrade: LegacyUpgradeRow
  readonly counts: LegacyScopeCounts
}

/** What the target database already holds for a scope. */
export interface TargetScopeState {
  /** Set when an earlier run upgraded the scope. */
  readonly upgrade: LegacyUpgradeRow | undefined
  /** Memories, changes or sources exist here (an upgrade would have to renumber them). */
  readonly holdsData: boolean
}
