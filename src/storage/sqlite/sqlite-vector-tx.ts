import type Database from 'better-sqlite3'

import type { EmbeddingProfile } from '../../core/embedding.js'
import type {
  HeadVectorState,
  StoredEmbeddingProfile,
  VectorHit,
  VectorRow,
  VectorTx,
} from '../spi/vector-tx.js'
import { nearestFirst } from '../spi/vector-tx.js'
import { GraphLifecycle } from './sqlite-ann-lifecycle.js'
import { logVectorChange, SqliteAnnReader } from './sqlite-ann-rows.js'
import { GraphSearch } from './sqlite-ann-search.js'
import type { GraphStore } from './sqlite-ann-store.js'
import type { AnnReadRunner } from './sqlite-ann-types.js'
import type { AnnScopeStatus } from './sqlite-ann-types.js'
import type { AnnSettings } from './sqlite-ann-types.js'
import type { Hnswlib } from './sqlite-ann-types.js'
import { SqliteStatements } from './sqlite-session.js'
import type { SqliteVectorIndex } from './sqlite-vector.js'

const HEAD_VECTOR_COLUMNS = `h.memory_id AS memoryId, h.version AS version,
  h.content_hash AS contentHash, m.version AS vectorVersion, m.content_hash AS vectorContentHash,
  m.embedding_hash AS embeddingHash`
const VECTOR_JOIN = `LEFT JOIN memory_vectors m
  ON m.projection_id = h.projection_id AND m.memory_id = h.memory_id`

/**
 * Vector verbs over one connection (SQL only, no decision): the `memory_vectors` metadata table
 * (projection id, memory, version, content hash, embedding hash) and the vector index rows under
 * the same projection id, always changed together inside the caller's transaction.
 */
export class SqliteVectorTx implements VectorTx {
  readonly #sql: SqliteStatements
  readonly #index: SqliteVectorIndex | undefined
  readonly #loadProblem: string | null
  #ensureProblem: string | null = null
  readonly annReader: SqliteAnnReader
  /** What the graphs are made with, once enabled (they are created when a profile exists). */
  #annConfig:
    { hnswlib: Hnswlib; settings: AnnSettings; read: AnnReadRunner; store?: GraphStore } | undefined
  #annProblem: string | undefined
  #ann: { lifecycle: GraphLifecycle; search: GraphSearch } | undefined

  constructor(
    db: Database.Database,
    index: SqliteVectorIndex | undefined,
    loadProblem: string | null,
  ) {
    this.#sql = new SqliteStatements(db)
    this.#index = index
    this.#loadProblem = loadProblem
    this.annReader = new SqliteAnnReader(this.#sql, index?.table ?? 'memory_vec')
  }

  get indexProblem(): string | null {
    if (this.#loadProblem !== null) return this.#loadProblem
    if (this.#ensureProblem !== null) return this.#ensureProblem
    return this.#index?.ready === true ? null : 'vector index not created yet'
  }

  /** At open: creates or checks the index for the stored profile's dimension. */
  prepareIndex(): void {
    const stored = this.#readProfile()
    if (stored !== undefined && this.#index !== undefined) {
      this.#ensureProblem = this.#index.ensure(stored.profile.dimension)
    }
  }

  #readProfile(): StoredEmbeddingProfile | undefined {
    const row = this.#sql
      .stmt(
        `SELECT profile_id AS profileId, model, dimension, distance, normalization, vector_epoch AS epoch
         FROM embedding_profile WHERE id = 1`,
      )
      .get() as (EmbeddingProfile & { epoch: number }) | undefined
    if (row === undefined) return undefined
    const { epoch, ...profile } = row
    return { profile: Object.freeze(profile), epoch }
  }

  async getProfile(): Promise<StoredEmbeddingProfile | undefined> {
    return this.#readProfile()
  }

  async insertProfile(p: EmbeddingProfile, at: string): Promise<void> {
    this.#sql
      .stmt(
        `INSERT INTO embedding_profile (id, profile_id, model, dimension, distance, normalization, created_at)
         VALUES (1, ?, ?, ?, ?, ?, ?)`,
      )
      .run(p.profileId, p.model, p.dimension, p.distance, p.normalization, at)
    if (this.#index !== undefined) this.#ensureProblem = this.#index.ensure(p.dimension)
  }

  async bumpEpoch(): Promise<void> {
    this.#sql
      .stmt('UPDATE embedding_profile SET vector_epoch = vector_epoch + 1 WHERE id = 1')
      .run()
  }

  async putVector(row: VectorRow): Promise<void> {
    const head = this.#sql
      .stmt('SELECT projection_id AS id FROM memory_heads WHERE memory_id = ?')
      .get(row.memoryId) as { id: number } | undefined
    if (head === undefined)
      throw new Error(`memory ${row.memoryId} has no head to attach a vector to`)
    const index = this.#index
    if (index === undefined || this.indexProblem !== null) {
      throw new Error(`vector index unavailable: ${this.indexProblem ?? 'not loaded'}`)
    }
    this.#deleteRows(row.memoryId)
    index.put(head.id, row.scopeId, row.kind, row.vector)
    logVectorChange(this.#sql, row.scopeId, row.memoryId)
    this.#sql
      .stmt(
        `INSERT INTO memory_vectors (projection_id, memory_id, scope_id, version, content_hash, embedding_hash)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(head.id, row.memoryId, row.scopeId, row.version, row.contentHash, row.embeddingHash)
  }

  async deleteVector(memoryId: string): Promise<void> {
    const scopeId = this.#deleteRows(memoryId)
    if (scopeId !== undefined) logVectorChange(this.#sql, scopeId, memoryId)
  }

  /** Deletes the memory's metadata and index rows; the scope when it had a metadata row. */
  #deleteRows(memoryId: string): string | undefined {
    const ids = this.#sql
      .stmt(
        `SELECT projection_id AS id, scope_id AS scopeId, 1 AS meta FROM memory_vectors WHERE memory_id = ?
         UNION SELECT projection_id, scope_id, 0 FROM memory_heads WHERE memory_id = ?`,
      )
      .all(memoryId, memoryId) as { id: number; scopeId: string; meta: number }[]
    this.#sql.stmt('DELETE FROM memory_vectors WHERE memory_id = ?').run(memoryId)
    // Also any index row left under the head's id by a run without the extension.
    if (this.#index?.ready === true) for (const { id } of ids) this.#index.delete(id)
    return ids.find((r) => r.meta === 1)?.scopeId
  }

  /** Empties metadata, index and log (rebuild; the epoch bump retires every graph). */
  clearAll(): void {
    this.#sql.db.exec('DELETE FROM memory_vectors')
    this.#sql.db.exec('DELETE FROM memory_vector_log')
    if (this.#index?.ready === true) this.#index.deleteAll()
  }

  /**
   * Turns on approximate search for large scopes (`sqlite-ann-search.ts`, its graphs built and
   * kept by `sqlite-ann-lifecycle.ts`); `read` runs background work in a read transaction between
   * the backend's other work.
   */
  enableAnn(
    hnswlib: Hnswlib,
    settings: AnnSettings,
    read: AnnReadRunner,
    store: GraphStore | undefined,
  ): void {
    this.#annConfig = { hnswlib, settings, read, ...(store === undefined ? {} : { store }) }
  }

  /** Why graphs are off although they were asked for (hnswlib could not be loaded). */
  disableAnn(problem: string): void {
    this.#annProblem = problem
  }

  /** The graphs, created once the database has a profile (its dimension fixes theirs). */
  #graphs(): { lifecycle: GraphLifecycle; search: GraphSearch } | undefined {
    const config = this.#annConfig
    if (this.#ann !== undefined || config === undefined) return this.#ann
    const profile = this.#readProfile()
    if (profile === undefined) return undefined
    const { hnswlib, settings, read, store } = config
    const lifecycle = new GraphLifecycle(hnswlib, profile.profile.dimension, settings, read, store)
    this.#ann = { lifecycle, search: new GraphSearch(lifecycle, settings) }
    return this.#ann
  }

  /** Approximate-search state per scope (benchmarks, tests); waits for background work first. */
  async annStatus(): Promise<{ lastError: string | null; scopes: Record<string, AnnScopeStatus> }> {
    const lifecycle = this.#ann?.lifecycle
    await lifecycle?.idle()
    return {
      lastError: this.#annProblem ?? lifecycle?.lastError ?? null,
      scopes: lifecycle?.status() ?? {},
    }
  }

  /**
   * Forgets the scope's graph in memory and on disk (after a redaction: a graph keeps the vectors
   * of deleted nodes); the next search of a large scope builds it again from the database.
   */
  async forgetGraph(scopeId: string): Promise<void> {
    this.#ann?.lifecycle.schedule(scopeId, 'drop')
    await this.#annConfig?.store?.remove(scopeId)
  }

  /** Stops background work and frees every graph. */
  closeAnn(): void {
    this.#ann?.lifecycle.close()
  }

  async searchVectors(q: {
    scopeId: string
    vector: readonly number[]
    kinds: readonly string[] | undefined
    limit: number
  }): Promise<VectorHit[]> {
    if (this.#index === undefined || this.indexProblem !== null) return []
    const graphs = q.kinds === undefined ? this.#graphs() : undefined
    if (graphs !== undefined) {
      const answer = graphs.search.search(this.annReader, q.scopeId, q.vector, q.limit)
      // The search only names the work its graph needs (build, catch-up, save, drop); it starts here.
      if (answer.work !== undefined) graphs.lifecycle.schedule(q.scopeId, answer.work)
      if (answer.near !== undefined) return this.#withMetadata(answer.near)
    }
    // One statement: the KNN is materialised first (so the planner can never turn it into point
    // look-ups), then joined to the metadata rows.
    const withKinds = q.kinds !== undefined
    const params: unknown[] = [new Float32Array(q.vector), q.limit, q.scopeId]
    if (withKinds) params.push(JSON.stringify(q.kinds))
    return this.#sql
      .stmt(
        `WITH near AS MATERIALIZED (${this.#index.knnSql(withKinds)})
         SELECT m.memory_id AS memoryId, m.version, m.content_hash AS contentHash,
           m.embedding_hash AS embeddingHash, near.distance
         FROM near JOIN memory_vectors m ON m.projection_id = near.projectionId
         ORDER BY near.distance IS NULL, near.distance, m.memory_id`,
      )
      .all(...params) as VectorHit[]
  }

  /** Metadata rows of approximate hits, nearest first, then memory id, as the Python reference orders them. */
  #withMetadata(near: { projectionId: number; distance: number }[]): VectorHit[] {
    if (near.length === 0) return []
    const distance = new Map(near.map((n) => [n.projectionId, n.distance]))
    const hits = (
      this.#sql
        .stmt(
          `SELECT m.projection_id AS id, m.memory_id AS memoryId, m.version, m.content_hash AS contentHash,
             m.embedding_hash AS embeddingHash
           FROM json_each(?) j JOIN memory_vectors m ON m.projection_id = j.value`,
        )
        .all(JSON.stringify([...distance.keys()])) as (Omit<VectorHit, 'distance'> & {
        id: number
      })[]
    ).map(({ id, ...m }) => ({ ...m, distance: distance.get(id) ?? null }))
    return hits.sort(nearestFirst)
  }

  async vectorCounts(scopeId: string): Promise<{ heads: number; vectors: number }> {
    return this.#sql
      .stmt(
        `SELECT (SELECT count(*) FROM memory_heads WHERE scope_id = ?) AS heads,
         (SELECT count(*) FROM memory_vectors WHERE scope_id = ?) AS vectors`,
      )
      .get(scopeId, scopeId) as { heads: number; vectors: number }
  }

  async matchingVectorHashes(
    scopeId: string,
  ): Promise<{ contentHash: string; embeddingHash: string }[]> {
    return this.#sql
      .stmt(
        `SELECT m.content_hash AS contentHash, m.embedding_hash AS embeddingHash
         FROM memory_heads h JOIN memory_vectors m
           ON m.projection_id = h.projection_id AND m.memory_id = h.memory_id
           AND m.version = h.version AND m.content_hash = h.content_hash
         WHERE h.scope_id = ?`,
      )
      .all(scopeId) as { contentHash: string; embeddingHash: string }[]
  }

  async headVectors(q: {
    readonly scopeId?: string | undefined
    readonly memoryIds?: readonly string[] | undefined
  }): Promise<HeadVectorState[]> {
    if (q.memoryIds !== undefined) {
      return this.#sql
        .stmt(
          `SELECT ${HEAD_VECTOR_COLUMNS} FROM json_each(?) j
           JOIN memory_heads h ON h.memory_id = j.value ${VECTOR_JOIN}
           WHERE (? IS NULL OR h.scope_id = ?)`,
        )
        .all(JSON.stringify(q.memoryIds), q.scopeId ?? null, q.scopeId ?? null) as HeadVectorState[]
    }
    if (q.scopeId === undefined) throw new Error('headVectors needs a scope or memory ids')
    return this.#sql
      .stmt(`SELECT ${HEAD_VECTOR_COLUMNS} FROM memory_heads h ${VECTOR_JOIN} WHERE h.scope_id = ?`)
      .all(q.scopeId) as HeadVectorState[]
  }

  async headVectorPage(
    after: string,
    limit: number,
  ): Promise<(HeadVectorState & { scopeId: string })[]> {
    return this.#sql
      .stmt(
        `SELECT ${HEAD_VECTOR_COLUMNS}, h.scope_id AS scopeId FROM memory_heads h ${VECTOR_JOIN}
         WHERE h.memory_id > ? ORDER BY h.memory_id LIMIT ?`,
      )
      .all(after, limit) as (HeadVectorState & { scopeId: string })[]
  }

  async checkVectorIndex(): Promise<string[]> {
    const index = this.#index
    if (index === undefined || index.ready !== true) return []
    const problems: string[] = []
    const indexed = new Set(index.projectionIds())
    const meta = this.#sql
      .stmt('SELECT projection_id AS id, memory_id AS memoryId FROM memory_vectors')
      .all() as { id: number; memoryId: string }[]
    for (const m of meta) {
      if (!indexed.delete(m.id))
        problems.push(`memory ${m.memoryId}: vector metadata without a vector`)
    }
    for (const id of indexed) problems.push(`vector row ${id} has no metadata (run rebuild)`)
    return problems
  }
}
