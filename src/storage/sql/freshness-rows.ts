/**
 * Row verbs of the path-change projection (docs/agents.md "Freshness"), written once over the
 * session every SQL adapter offers (SQL only, no decision). `DialectTx.freshness`
 * carries them.
 */
import type {
  AnchoredChangeRow,
  CitedVersionRow,
  FreshnessCheckRow,
  FreshnessTx,
  SourcePathRow,
} from '../spi/freshness-types.js'
import type { SqlDialect } from './dialect.js'
import type { SqlSession } from './session.js'

const PATH_COLUMNS = `scope_id AS scopeId, position, source_id AS sourceId, path_key AS pathKey,
  path, kind, commit_id AS commitId, captured_at AS capturedAt`

const CHECK_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, version, checked_at AS checkedAt`

const typedPath = (r: SourcePathRow): SourcePathRow => ({ ...r, position: Number(r.position) })

/** The path-change verbs of one transaction. */
export class FreshnessRows implements FreshnessTx {
  readonly #s: SqlSession
  readonly #d: SqlDialect

  constructor(session: SqlSession, dialect: SqlDialect) {
    this.#s = session
    this.#d = dialect
  }

  async citedVersions(memoryIds: readonly string[]): Promise<CitedVersionRow[]> {
    if (memoryIds.length === 0) return []
    const rows = await this.#s.all<CitedVersionRow>(
      `SELECT m.memory_id AS memoryId, m.scope_id AS scopeId, m.state, v.version,
         v.created_at AS createdAt, v.sources_json AS sourcesJson
       FROM memories m
       JOIN memory_versions v ON v.memory_id = m.memory_id AND v.version = m.current_version
       WHERE m.memory_id IN ${this.#d.inList.sql}`,
      [this.#d.inList.bind(memoryIds)],
    )
    return rows.map((r) => ({ ...r, version: Number(r.version) }))
  }

  async putSourcePaths(rows: readonly SourcePathRow[]): Promise<void> {
    for (const r of rows) {
      await this.#s.run(
        `INSERT INTO source_paths (scope_id, position, source_id, path_key, path, kind, commit_id,
           captured_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ${this.#d.ignoreDuplicate(['scope_id', 'position', 'path_key'])}`,
        [r.scopeId, r.position, r.sourceId, r.pathKey, r.path, r.kind, r.commitId, r.capturedAt],
      )
    }
  }

  async anchorsOf(scopeId: string, sourceIds: readonly string[]): Promise<SourcePathRow[]> {
    if (sourceIds.length === 0) return []
    const rows = await this.#s.all<SourcePathRow>(
      `SELECT ${PATH_COLUMNS} FROM source_paths
       WHERE scope_id = ? AND source_id IN ${this.#d.inList.sql}`,
      [scopeId, this.#d.inList.bind(sourceIds)],
    )
    // Ordered here: an ORDER BY on the key's order would make the planner scan the whole scope.
    return rows
      .map(typedPath)
      .sort((a, b) => a.position - b.position || (a.pathKey < b.pathKey ? -1 : 1))
  }

  async changedAfter(
    scopeId: string,
    pathKeys: readonly string[],
    after: string,
    limit: number,
  ): Promise<SourcePathRow[]> {
    if (pathKeys.length === 0) return []
    const rows = await this.#s.all<SourcePathRow>(
      `SELECT ${PATH_COLUMNS} FROM source_paths
       WHERE scope_id = ? AND path_key IN ${this.#d.inList.sql} AND kind = 'git_change'
         AND captured_at > ?
       ORDER BY captured_at DESC, position DESC LIMIT ?`,
      [scopeId, this.#d.inList.bind(pathKeys), after, limit],
    )
    return rows.map(typedPath)
  }

  async anchorsWithChanges(
    scopeId: string,
    sourceIds: readonly string[],
    after: string,
    limit: number,
  ): Promise<AnchoredChangeRow[]> {
    if (sourceIds.length === 0) return []
    // The sources' paths, each joined to the later changes of the same path (both by index; a
    // path without any still comes once, for its anchor's commit). No ORDER BY: sorting these wide
    // rows in SQL costs more than reading them; the caller orders them.
    const rows = await this.#s.all<AnchoredChangeRow>(
      `SELECT a.source_id AS anchorId, a.commit_id AS anchorCommit, c.position,
         c.source_id AS sourceId, c.path, c.commit_id AS commitId, c.captured_at AS capturedAt
       FROM source_paths a LEFT JOIN source_paths c
         ON c.scope_id = a.scope_id AND c.path_key = a.path_key
           AND c.kind = 'git_change' AND c.captured_at > ?
       WHERE a.scope_id = ? AND a.source_id IN ${this.#d.inList.sql}
       LIMIT ?`,
      [after, scopeId, this.#d.inList.bind(sourceIds), limit],
    )
    return rows.map((r) => ({ ...r, position: r.position === null ? null : Number(r.position) }))
  }

  async sourcesNaming(
    scopeId: string,
    pathKeys: readonly string[],
    limit: number,
  ): Promise<string[]> {
    if (pathKeys.length === 0) return []
    const rows = await this.#s.all<{ id: string }>(
      `SELECT DISTINCT source_id AS id FROM source_paths
       WHERE scope_id = ? AND path_key IN ${this.#d.inList.sql} ORDER BY source_id LIMIT ?`,
      [scopeId, this.#d.inList.bind(pathKeys), limit],
    )
    return rows.map((r) => r.id)
  }

  async memoriesCiting(
    scopeId: string,
    sourceIds: readonly string[],
    limit: number,
  ): Promise<string[]> {
    if (sourceIds.length === 0) return []
    // Evidence is canonical JSON (`{"name":"content","source_id":"…"}`): matched as text.
    const like = sourceIds.map(() => "v.sources_json LIKE ? ESCAPE '!'").join(' OR ')
    const patterns = sourceIds.map(
      (id) => `%"source_id":${JSON.stringify(id).replace(/[!%_]/g, (c) => `!${c}`)}%`,
    )
    const rows = await this.#s.all<{ id: string }>(
      `SELECT h.memory_id AS id FROM memory_heads h
       JOIN memory_versions v ON v.memory_id = h.memory_id AND v.version = h.version
       WHERE h.scope_id = ? AND (${like}) ORDER BY h.memory_id LIMIT ?`,
      [scopeId, ...patterns, limit],
    )
    return rows.map((r) => r.id)
  }

  async checksOf(memoryIds: readonly string[]): Promise<FreshnessCheckRow[]> {
    if (memoryIds.length === 0) return []
    const rows = await this.#s.all<FreshnessCheckRow>(
      `SELECT ${CHECK_COLUMNS} FROM freshness_checks WHERE memory_id IN ${this.#d.inList.sql}`,
      [this.#d.inList.bind(memoryIds)],
    )
    return rows.map((r) => ({ ...r, version: Number(r.version) }))
  }

  async putCheck(r: FreshnessCheckRow): Promise<void> {
    await this.#s.run(
      `INSERT INTO freshness_checks (memory_id, scope_id, version, checked_at) VALUES (?, ?, ?, ?)
       ${this.#d.upsert(['memory_id'], ['version', 'checked_at'])}`,
      [r.memoryId, r.scopeId, r.version, r.checkedAt],
    )
  }

  async clearSourcePaths(): Promise<void> {
    await this.#s.run('DELETE FROM source_paths')
  }
}
