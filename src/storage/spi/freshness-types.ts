/*
 * Freshness of code-anchored memories (docs/agents.md "Freshness"): the path-change projection's
 * rows, the row verbs an adapter offers for it inside one transaction (SQL only), and
 * the lookup the backend answers.
 */
import type { StaleMark } from '../../core/freshness.js'
import type { ArtifactRef, Memory, MemoryState } from '../../core/memory-model.js'

/** One path a captured source names: a Git change's changed path or a task outcome's. */
export interface SourcePathRow {
  readonly scopeId: string
  readonly position: number
  readonly sourceId: string
  readonly pathKey: string
  readonly path: string
  readonly kind: 'git_change' | 'task_outcome'
  readonly commitId: string | null
  readonly capturedAt: string
}

/**
 * A path an anchoring source names with one Git change captured later that touched it (the change
 * fields are null for a path no later change touched): `FreshnessTx.anchorsWithChanges`.
 */
export interface AnchoredChangeRow {
  /** The anchoring source and the commit it names. */
  readonly anchorId: string
  readonly anchorCommit: string | null
  readonly position: number | null
  readonly sourceId: string | null
  readonly path: string | null
  readonly commitId: string | null
  readonly capturedAt: string | null
}

/** A memory version found still true after the commits captured up to `checkedAt`. */
export interface FreshnessCheckRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly version: number
  readonly checkedAt: string
}

/** The path-change projection's verbs of one transaction. */
/** What the freshness lookup reads of a memory's current version (not its text). */
export interface CitedVersionRow {
  readonly memoryId: string
  readonly scopeId: string
  readonly state: MemoryState
  readonly version: number
  readonly createdAt: string
  readonly sourcesJson: string
}

export interface FreshnessTx {
  /**
   * The current version of each given memory, only the columns the lookup needs (one indexed
   * read; an unknown id has no row).
   */
  citedVersions(memoryIds: readonly string[]): Promise<CitedVersionRow[]>
  /** Adds the rows of one captured source (a repeat of the same row is a no-op). */
  putSourcePaths(rows: readonly SourcePathRow[]): Promise<void>
  /** The rows of the given sources of the scope (a memory's anchors). */
  anchorsOf(scopeId: string, sourceIds: readonly string[]): Promise<SourcePathRow[]>
  /**
   * Git change rows of the scope for the given path keys captured strictly after `after`, newest
   * capture first, at most `limit`.
   */
  changedAfter(
    scopeId: string,
    pathKeys: readonly string[],
    after: string,
    limit: number,
  ): Promise<SourcePathRow[]>
  /**
   * Each path the given sources of the scope name (the anchoring ones), with each Git change of
   * the scope captured strictly after `after` that touched it, or once with null change fields
   * when none did; in no order, at most `limit` rows. One indexed read whatever the number of
   * sources; none for sources that anchor nothing.
   */
  anchorsWithChanges(
    scopeId: string,
    sourceIds: readonly string[],
    after: string,
    limit: number,
  ): Promise<AnchoredChangeRow[]>
  /** Ids of the scope's sources naming any of the given path keys, at most `limit`. */
  sourcesNaming(scopeId: string, pathKeys: readonly string[], limit: number): Promise<string[]>
  /** Active memories of the scope whose current version cites any of the sources, at most `limit`. */
  memoriesCiting(scopeId: string, sourceIds: readonly string[], limit: number): Promise<string[]>
  /** The last freshness check of each given memory. */
  checksOf(memoryIds: readonly string[]): Promise<FreshnessCheckRow[]>
  /** Records (or replaces) the last freshness check of a memory. */
  putCheck(row: FreshnessCheckRow): Promise<void>
  /** Drops every path row (before a rebuild). */
  clearSourcePaths(): Promise<void>
}

/** Which memories of a scope are possibly stale (`backend.freshness`). */
export interface FreshnessCommand {
  readonly scopeId: string
  /** The memory versions to check (up to 256); a ref that is not current is not marked. */
  readonly refs: readonly ArtifactRef[]
}

/** The stale marks by memory id; a memory absent from the map is not marked. */
export type FreshnessResult = ReadonlyMap<string, StaleMark>

/** Possibly stale memories anchored to some paths (a flush's re-check). */
export interface StaleAnchoredCommand {
  readonly scopeId: string
  /** The paths changed (up to 1,000). */
  readonly paths: readonly string[]
  /** Memories returned at most (1–100). */
  readonly limit: number
}

/** A possibly stale memory: its current version and why. */
export interface StaleMemory {
  readonly memory: Memory
  readonly mark: StaleMark
}
