import type { LegacyTx } from '../spi/legacy-tx.js'
import type {
  LegacyCitationKey,
  LegacyCitationRow,
  LegacyPayloadRow,
  LegacyUpgradeRow,
} from '../spi/legacy-tx.js'
import type { SqlSession } from './session.js'

const UPGRADE_COLUMNS = `scope_id AS scopeId, legacy_scope_id AS legacyScopeId, origin,
  fingerprint, cursor_base AS cursorBase, counts_json AS countsJson, operation_id AS operationId,
  upgraded_at AS upgradedAt`
const CITATION_COLUMNS = `scope_id AS scopeId, memory_artifact_id AS memoryArtifactId,
  entry_id AS entryId, entry_version_id AS entryVersionId, first_revision AS firstRevision,
  memory_id AS memoryId, version`
const PAYLOAD_COLUMNS = `scope_id AS scopeId, source_type AS sourceType, source_id AS sourceId,
  payload`

const num = <T extends { version: number; firstRevision: number }>(r: T): T => ({
  ...r,
  version: Number(r.version),
  firstRevision: Number(r.firstRevision),
})

/** The upgrade tables' verbs inside one transaction. */
export class LegacyRows implements LegacyTx {
  readonly #s: SqlSession

  constructor(session: SqlSession) {
    this.#s = session
  }

  async getUpgrade(scopeId: string): Promise<LegacyUpgradeRow | undefined> {
    const rows = await this.#s.all<LegacyUpgradeRow>(
      `SELECT ${UPGRADE_COLUMNS} FROM legacy_upgrades WHERE scope_id = ?`,
      [scopeId],
    )
    const r = rows[0]
    return r === undefined ? undefined : { ...r, cursorBase: Number(r.cursorBase) }
  }

  async insertUpgrade(r: LegacyUpgradeRow): Promise<void> {
    await this.#s.run(
      `INSERT INTO legacy_upgrades (scope_id, legacy_scope_id, origin, fingerprint, cursor_base,
        counts_json, operation_id, upgraded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.scopeId,
        r.legacyScopeId,
        r.origin,
        r.fingerprint,
        r.cursorBase,
        r.countsJson,
        r.operationId,
        r.upgradedAt,
      ],
    )
  }

  /** Upgraded scopes by scope id after `after` (keyset page). */
  async listUpgrades(after: string, limit: number): Promise<LegacyUpgradeRow[]> {
    const rows = await this.#s.all<LegacyUpgradeRow>(
      `SELECT ${UPGRADE_COLUMNS} FROM legacy_upgrades WHERE scope_id > ? ORDER BY scope_id LIMIT ?`,
      [after, limit],
    )
    return rows.map((r) => ({ ...r, cursorBase: Number(r.cursorBase) }))
  }

  async insertCitation(r: LegacyCitationRow): Promise<void> {
    await this.#s.run(
      `INSERT INTO legacy_citations (scope_id, memory_artifact_id, entry_id, entry_version_id,
        first_revision, memory_id, version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        r.scopeId,
        r.memoryArtifactId,
        r.entryId,
        r.entryVersionId,
        r.firstRevision,
        r.memoryId,
        r.version,
      ],
    )
  }

  async findCitation(k: LegacyCitationKey): Promise<LegacyCitationRow | undefined> {
    const rows = await this.#s.all<LegacyCitationRow>(
      `SELECT ${CITATION_COLUMNS} FROM legacy_citations WHERE scope_id = ? AND
        memory_artifact_id = ? AND entry_id = ? AND entry_version_id = ?`,
      [k.scopeId, k.memoryArtifactId, k.entryId, k.entryVersionId],
    )
    return rows[0] === undefined ? undefined : num(rows[0])
  }

  /** The citation of an entry's latest upgraded version (the memory it became). */
  async latestOfEntry(
    scopeId: string,
    memoryArtifactId: string,
    entryId: string,
  ): Promise<LegacyCitationRow | undefined> {
    const rows = await this.#s.all<LegacyCitationRow>(
      `SELECT ${CITATION_COLUMNS} FROM legacy_citations WHERE scope_id = ? AND
        memory_artifact_id = ? AND entry_id = ? ORDER BY version DESC LIMIT 1`,
      [scopeId, memoryArtifactId, entryId],
    )
    return rows[0] === undefined ? undefined : num(rows[0])
  }

  /** Citations in key order after `after` (keyset page; `undefined` starts at the beginning). */
  async listCitations(
    after: LegacyCitationKey | undefined,
    limit: number,
  ): Promise<LegacyCitationRow[]> {
    const k = after ?? { scopeId: '', memoryArtifactId: '', entryId: '', entryVersionId: '' }
    const rows = await this.#s.all<LegacyCitationRow>(
      `SELECT ${CITATION_COLUMNS} FROM legacy_citations
       WHERE (scope_id, memory_artifact_id, entry_id, entry_version_id) > (?, ?, ?, ?)
       ORDER BY scope_id, memory_artifact_id, entry_id, entry_version_id LIMIT ?`,
      [k.scopeId, k.memoryArtifactId, k.entryId, k.entryVersionId, limit],
    )
    return rows.map(num)
  }

  async insertPayload(r: LegacyPayloadRow): Promise<void> {
    await this.#s.run(
      `INSERT INTO legacy_source_payloads (scope_id, source_type, source_id, payload)
       VALUES (?, ?, ?, ?)`,
      [r.scopeId, r.sourceType, r.sourceId, Buffer.from(r.payload)],
    )
  }

  async getPayload(
    scopeId: string,
    sourceType: string,
    sourceId: string,
  ): Promise<LegacyPayloadRow | undefined> {
    const rows = await this.#s.all<LegacyPayloadRow>(
      `SELECT ${PAYLOAD_COLUMNS} FROM legacy_source_payloads WHERE scope_id = ? AND
        source_type = ? AND source_id = ?`,
      [scopeId, sourceType, sourceId],
    )
    return rows[0]
  }

  /** Original payloads in key order after `after` (keyset page). */
  async listPayloads(
    after: { scopeId: string; sourceType: string; sourceId: string } | undefined,
    limit: number,
  ): Promise<LegacyPayloadRow[]> {
    const k = after ?? { scopeId: '', sourceType: '', sourceId: '' }
    return this.#s.all<LegacyPayloadRow>(
      `SELECT ${PAYLOAD_COLUMNS} FROM legacy_source_payloads
       WHERE (scope_id, source_type, source_id) > (?, ?, ?)
       ORDER BY scope_id, source_type, source_id LIMIT ?`,
      [k.scopeId, k.sourceType, k.sourceId, limit],
    )
  }

  /** Citations whose memory lies in another scope (each names its key), at most `limit`. */
  async crossScopeCitations(limit: number): Promise<LegacyCitationRow[]> {
    const rows = await this.#s.all<LegacyCitationRow>(
      `SELECT c.scope_id AS scopeId, c.memory_artifact_id AS memoryArtifactId,
         c.entry_id AS entryId, c.entry_version_id AS entryVersionId,
         c.first_revision AS firstRevision, c.memory_id AS memoryId, c.version
       FROM legacy_citations c JOIN memories m ON m.memory_id = c.memory_id
       WHERE m.scope_id <> c.scope_id LIMIT ?`,
      [limit],
    )
    return rows.map(num)
  }

  /** Row counts of the three tables (verify, export). */
  async counts(): Promise<{ upgrades: number; citations: number; payloads: number }> {
    const rows = await this.#s.all<{ u: number; c: number; p: number }>(
      `SELECT (SELECT COUNT(*) FROM legacy_upgrades) AS u,
         (SELECT COUNT(*) FROM legacy_citations) AS c,
         (SELECT COUNT(*) FROM legacy_source_payloads) AS p`,
      [],
    )
    const r = rows[0]
    return {
      upgrades: Number(r?.u ?? 0),
      citations: Number(r?.c ?? 0),
      payloads: Number(r?.p ?? 0),
    }
  }
}
