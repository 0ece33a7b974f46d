import type { EmbeddingProfile } from '../../core/embedding.js'
import type {
  HeadVectorState,
  StoredEmbeddingProfile,
  VectorHit,
  VectorRow,
  VectorTx,
} from '../spi/vector-tx.js'
import { nearestFirst } from '../spi/vector-tx.js'
import type { SqlSession } from '../sql/session.js'
import type { VectorDialect } from './mysql-search.js'
import { vectorLiteral } from './mysql-search.js'

const HEAD_VECTOR_COLUMNS = `memory_id AS memoryId, version, content_hash AS contentHash,
  vector_version AS vectorVersion, vector_content_hash AS vectorContentHash,
  embedding_hash AS embeddingHash`

/** What the backend found at open about the vector column of the heads table. */
export interface VectorColumnState {
  /** The dialect's vector SQL; undefined for a dialect without a vector type. */
  readonly dialect: VectorDialect | undefined
  /** True when `memory_heads.embedding` exists (with the profile's dimension or not). */
  readonly hasColumn: boolean
  /** Why vectors cannot be written or searched; null when they can. */
  readonly problem: string | null
}

/**
 * Vector verbs (SQL only, no decision). OceanBase keeps the vector in the head row itself, as the
 * OceanBase DDL of docs/oceanbase.md does: `embedding VECTOR(dim)` with an HNSW L2 index, next to the vector
 * version, content hash and embedding hash that bind it to one version of one memory. Removing the
 * head removes its vector in the same statement. On a dialect without a vector type the profile is
 * still stored (so the database keeps its fixed profile) and every vector verb is a no-op.
 */
export class MysqlVectorTx implements VectorTx {
  readonly #sql: SqlSession
  readonly #state: VectorColumnState

  constructor(sql: SqlSession, state: VectorColumnState) {
    this.#sql = sql
    this.#state = state
  }

  get indexProblem(): string | null {
    return this.#state.problem
  }

  async getProfile(): Promise<StoredEmbeddingProfile | undefined> {
    const row = await this.#sql.get<EmbeddingProfile & { epoch: number }>(
      `SELECT profile_id AS profileId, model, dimension, distance, normalization,
         vector_epoch AS epoch FROM embedding_profile WHERE id = 1`,
    )
    if (row === undefined) return undefined
    const { epoch, ...profile } = row
    return { profile: Object.freeze({ ...profile }), epoch }
  }

  async insertProfile(p: EmbeddingProfile, at: string): Promise<void> {
    await this.#sql.run(
      `INSERT INTO embedding_profile (id, profile_id, model, dimension, distance, normalization,
         created_at) VALUES (1, ?, ?, ?, ?, ?, ?)`,
      [p.profileId, p.model, p.dimension, p.distance, p.normalization, at],
    )
  }

  async bumpEpoch(): Promise<void> {
    await this.#sql.run('UPDATE embedding_profile SET vector_epoch = vector_epoch + 1 WHERE id = 1')
  }

  async putVector(row: VectorRow): Promise<void> {
    if (!this.#state.hasColumn || this.#state.problem !== null) {
      throw new Error(`vector index unavailable: ${this.#state.problem ?? 'no vector column'}`)
    }
    const result = await this.#sql.run(
      `UPDATE memory_heads SET embedding = ?, vector_version = ?, vector_content_hash = ?,
         embedding_hash = ? WHERE memory_id = ?`,
      [vectorLiteral(row.vector), row.version, row.contentHash, row.embeddingHash, row.memoryId],
    )
    if (result.changes !== 1) {
      throw new Error(`memory ${row.memoryId} has no head to attach a vector to`)
    }
  }

  async deleteVector(memoryId: string): Promise<void> {
    // Without the column no vector metadata was ever written.
    if (!this.#state.hasColumn) return
    await this.#sql.run(
      `UPDATE memory_heads SET embedding = NULL, vector_version = NULL, vector_content_hash = NULL,
         embedding_hash = NULL WHERE memory_id = ? AND embedding_hash IS NOT NULL`,
      [memoryId],
    )
  }

  /** `l2_distance(…) APPROXIMATE` over the HNSW index, then nearest first, memory id on ties. */
  async searchVectors(q: {
    scopeId: string
    vector: readonly number[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<VectorHit[]> {
    const dialect = this.#state.dialect
    if (dialect === undefined || !this.#state.hasColumn || this.#state.problem !== null) return []
    if (q.kinds?.length === 0) return []
    const literal = vectorLiteral(q.vector)
    const kinds = q.kinds === undefined ? [] : [q.kinds]
    const rows = await this.#sql.all<VectorHit>(dialect.searchSql(q.kinds !== undefined), [
      literal,
      q.scopeId,
      ...kinds,
      literal,
      q.limit,
    ])
    return rows
      .map((r) => ({ ...r, distance: r.distance === null ? null : Number(r.distance) }))
      .sort(nearestFirst)
  }

  async vectorCounts(scopeId: string): Promise<{ heads: number; vectors: number }> {
    const row = await this.#sql.get<{ heads: number; vectors: number }>(
      `SELECT COUNT(*) AS heads, COUNT(embedding_hash) AS vectors FROM memory_heads
       WHERE scope_id = ?`,
      [scopeId],
    )
    return { heads: row?.heads ?? 0, vectors: row?.vectors ?? 0 }
  }

  async matchingVectorHashes(
    scopeId: string,
  ): Promise<{ contentHash: string; embeddingHash: string }[]> {
    return this.#sql.all(
      `SELECT content_hash AS contentHash, embedding_hash AS embeddingHash FROM memory_heads
       WHERE scope_id = ? AND vector_version = version AND vector_content_hash = content_hash
         AND embedding_hash IS NOT NULL`,
      [scopeId],
    )
  }

  async headVectors(q: {
    readonly scopeId?: string | undefined
    readonly memoryIds?: readonly string[] | undefined
  }): Promise<HeadVectorState[]> {
    if (q.memoryIds !== undefined) {
      if (q.memoryIds.length === 0) return []
      const scope = q.scopeId === undefined ? '' : ' AND scope_id = ?'
      return this.#sql.all(
        `SELECT ${HEAD_VECTOR_COLUMNS} FROM memory_heads WHERE memory_id IN (?)${scope}`,
        [q.memoryIds, ...(q.scopeId === undefined ? [] : [q.scopeId])],
      )
    }
    if (q.scopeId === undefined) throw new Error('headVectors needs a scope or memory ids')
    return this.#sql.all(`SELECT ${HEAD_VECTOR_COLUMNS} FROM memory_heads WHERE scope_id = ?`, [
      q.scopeId,
    ])
  }

  async headVectorPage(
    after: string,
    limit: number,
  ): Promise<(HeadVectorState & { scopeId: string })[]> {
    return this.#sql.all(
      `SELECT ${HEAD_VECTOR_COLUMNS}, scope_id AS scopeId FROM memory_heads
       WHERE memory_id > ? ORDER BY memory_id LIMIT ?`,
      [after, limit],
    )
  }

  /** A vector without its metadata, or metadata without a vector (or without the column). */
  async checkVectorIndex(): Promise<string[]> {
    const sql = this.#state.hasColumn
      ? `SELECT memory_id AS memoryId FROM memory_heads
         WHERE (embedding IS NULL) <> (embedding_hash IS NULL)
           OR (embedding_hash IS NULL) <> (vector_version IS NULL)
           OR (embedding_hash IS NULL) <> (vector_content_hash IS NULL)
         ORDER BY memory_id LIMIT 100`
      : `SELECT memory_id AS memoryId FROM memory_heads WHERE embedding_hash IS NOT NULL
           OR vector_version IS NOT NULL OR vector_content_hash IS NOT NULL
         ORDER BY memory_id LIMIT 100`
    const rows = await this.#sql.all<{ memoryId: string }>(sql)
    return rows.map(
      (r) => `memory ${r.memoryId}: vector and vector metadata disagree (run rebuild)`,
    )
  }
}
