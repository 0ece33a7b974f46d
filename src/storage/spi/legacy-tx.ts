/**
 * Row verbs of the upgrade tables (`legacy_upgrades`, `legacy_citations`, `legacy_source_payloads`;
 * docs/upgrade.md), written once over the small session both adapters offer (SQL only,
 * the base class decides). `DialectTx.legacy` carries them.
 */

/** One upgraded scope: where it came from and what its journal cursor started at. */
export interface LegacyUpgradeRow {
  /** The scope here. */
  readonly scopeId: string
  /** The scope id in the reference database (differs when mapped with `--map-scope`). */
  readonly legacyScopeId: string
  /** The reference database it came from (file path or redacted URL). */
  readonly origin: string
  /** SHA-256 over the old scope's state at upgrade time (a rerun detects later writes). */
  readonly fingerprint: string
  /** The reference cursor carried over: positions up to here were processed by the reference. */
  readonly cursorBase: number
  /** Canonical JSON of what was moved. */
  readonly countsJson: string
  readonly operationId: string
  readonly upgradedAt: string
}

/** Key of an old entry citation (the reference's MemoryCitation without the collection revision). */
export interface LegacyCitationKey {
  readonly scopeId: string
  readonly memoryArtifactId: string
  readonly entryId: string
  readonly entryVersionId: string
}

/** An old entry version and the exact memory version it became. */
export interface LegacyCitationRow extends LegacyCitationKey {
  /** The collection revision that created the entry version (older citations cannot name it). */
  readonly firstRevision: number
  readonly memoryId: string
  readonly version: number
}

/** The original payload bytes of an upgraded source. */
export interface LegacyPayloadRow {
  readonly scopeId: string
  readonly sourceType: string
  readonly sourceId: string
  readonly payload: Uint8Array
}

/** The upgrade tables' verbs of one transaction (SQL only; the base class decides). */
export interface LegacyTx {
  getUpgrade(scopeId: string): Promise<LegacyUpgradeRow | undefined>
  insertUpgrade(r: LegacyUpgradeRow): Promise<void>
  /** Upgraded scopes by scope id after `after` (keyset page). */
  listUpgrades(after: string, limit: number): Promise<LegacyUpgradeRow[]>
  insertCitation(r: LegacyCitationRow): Promise<void>
  findCitation(k: LegacyCitationKey): Promise<LegacyCitationRow | undefined>
  /** The citation of an entry's latest upgraded version (the memory it became). */
  latestOfEntry(
    scopeId: string,
    memoryArtifactId: string,
    entryId: string,
  ): Promise<LegacyCitationRow | undefined>
  /** Citations in key order after `after` (keyset page; `undefined` starts at the beginning). */
  listCitations(after: LegacyCitationKey | undefined, limit: number): Promise<LegacyCitationRow[]>
  insertPayload(r: LegacyPayloadRow): Promise<void>
  getPayload(
    scopeId: string,
    sourceType: string,
    sourceId: string,
  ): Promise<LegacyPayloadRow | undefined>
  /** Original payloads in key order after `after` (keyset page). */
  listPayloads(
    after: { scopeId: string; sourceType: string; sourceId: string } | undefined,
    limit: number,
  ): Promise<LegacyPayloadRow[]>
  /** Citations whose memory lies in another scope (each names its key), at most `limit`. */
  crossScopeCitations(limit: number): Promise<LegacyCitationRow[]>
  /** Row counts of the three tables (verify, export). */
  counts(): Promise<{ upgrades: number; citations: number; payloads: number }>
}
