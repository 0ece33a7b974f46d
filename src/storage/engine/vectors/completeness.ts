import type { DialectTx } from '../../spi/dialect-tx.js'
import type { HeadVectorState, VectorTx } from '../../spi/vector-tx.js'

/** Scopes whose completeness is cached. */
const CACHED_SCOPES = 1_000
/** At most this many change-log rows are read to re-check a complete scope incrementally. */
const INCREMENTAL_MAX_CHANGES = 2_000

/**
 * What a completeness answer was computed from: the scope's change-log head (writes of every
 * process), the vector epoch (reindex and rebuild of every process) and the scope's counts of
 * active heads and vector rows (a reindex batch of another process moves them before its epoch
 * bump). Any of them moving makes a cached incomplete answer stale; a complete one is kept while
 * the seq and the epoch stay (counts are then not read).
 */
interface Key {
  readonly seq: number
  readonly epoch: number
  readonly heads: number
  readonly vectors: number
}

interface Entry extends Key {
  readonly complete: boolean
}

const sameKey = (a: Key, b: Key): boolean =>
  a.seq === b.seq && a.epoch === b.epoch && a.heads === b.heads && a.vectors === b.vectors

/**
 * completeness, per scope: every active head has a vector row of its current version,
 * content hash and expected embedding hash. Counts come first (fewer vector rows than heads is
 * incomplete at once). With equal counts every head is compared — version, content hash and
 * embedding hash — unless the scope was complete under the same epoch at an earlier change-log
 * head: then only the memories changed since are compared (a vector row changes only with its
 * head's change-log entry, or by reindex/rebuild, which bump the epoch). The answer is cached by
 * {@link Key}, so every process's writes are seen by the next search; a row altered outside
 * PowerContext is seen by the next full comparison (a new process, an epoch bump), and the per-hit
 * re-check never returns it meanwhile.
 */
export class CompletenessCache {
  readonly #valid: (h: HeadVectorState) => boolean
  readonly #expected: (contentHash: string) => string
  readonly #cache = new Map<string, Entry>()

  /** `valid`: a head's vector row is its own under the profile; `expected`: the embedding hash. */
  constructor(valid: (h: HeadVectorState) => boolean, expected: (contentHash: string) => string) {
    this.#valid = valid
    this.#expected = expected
  }

  /** The last answer for the scope (possibly outdated), or undefined. */
  hint(scopeId: string): boolean | undefined {
    return this.#cache.get(scopeId)?.complete
  }

  /** The scope's completeness, read in `tx` (see the class comment). */
  async check(tx: DialectTx, vectors: VectorTx, scopeId: string): Promise<boolean> {
    const seq = await tx.headSeq(scopeId)
    const epoch = (await vectors.getProfile())?.epoch ?? 0
    const cached = this.#cache.get(scopeId)
    // A complete answer holds until a write (seq) or a reindex/rebuild (epoch) moves: a reindex
    // batch only adds the rows an incomplete scope lacks. So the common case — a complete scope,
    // nothing written since — costs two point reads and no count over the scope's rows.
    if (cached?.complete === true && cached.seq === seq && cached.epoch === epoch) return true
    const counts = await vectors.vectorCounts(scopeId)
    const key: Key = { seq, epoch, ...counts }
    if (cached !== undefined && sameKey(cached, key)) return cached.complete
    let complete = counts.heads === counts.vectors
    if (complete) {
      const since = cached?.complete === true && cached.epoch === epoch ? cached.seq : undefined
      complete =
        since !== undefined && seq >= since && seq - since <= INCREMENTAL_MAX_CHANGES
          ? await this.#changedValid(tx, vectors, scopeId, since, seq - since)
          : await this.#allValid(vectors, scopeId, counts.heads)
    }
    this.#remember(scopeId, { ...key, complete })
    return complete
  }

  async #allValid(vectors: VectorTx, scopeId: string, heads: number): Promise<boolean> {
    const rows = await vectors.matchingVectorHashes(scopeId)
    return (
      rows.length === heads && rows.every((r) => this.#expected(r.contentHash) === r.embeddingHash)
    )
  }

  async #changedValid(
    tx: DialectTx,
    vectors: VectorTx,
    scopeId: string,
    since: number,
    count: number,
  ): Promise<boolean> {
    if (count === 0) return true
    const changed = await tx.listChanges(scopeId, since, count)
    const memoryIds = [...new Set(changed.map((c) => c.memoryId))]
    return (await vectors.headVectors({ scopeId, memoryIds })).every(this.#valid)
  }

  #remember(scopeId: string, entry: Entry): void {
    this.#cache.delete(scopeId)
    this.#cache.set(scopeId, entry)
    if (this.#cache.size > CACHED_SCOPES) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
  }
}
