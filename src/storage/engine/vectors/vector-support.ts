import type { Embedder, EmbeddingProfile } from '../../../core/embedding.js'
import {
  describeProfile,
  embeddingHasher,
  normalizeEmbedding,
  sameProfile,
} from '../../../core/embedding.js'
import { PowerContextError } from '../../../core/errors.js'
import type { DialectTx } from '../../spi/dialect-tx.js'
import type { VectorStatus } from '../../spi/memory-backend.js'
import type { HeadVectorState } from '../../spi/vector-tx.js'
import { CompletenessCache } from './completeness.js'

/** Runs work in the backend's read or write transactions (passed down by the base class). */
export interface TxRunner {
  read<T>(work: (tx: DialectTx) => Promise<T>): Promise<T>
  write<T>(work: (tx: DialectTx) => Promise<T>): Promise<T>
}

/**
 * Vectors embedded before one write transaction, keyed by the exact text they were computed from.
 * Inside the transaction a vector is written only for a version with that very text, under the
 * embedding hash of that version's content hash (computed outside the transaction, re-checked inside).
 */
export interface PreparedVectors {
  readonly profile: EmbeddingProfile
  readonly hashOf: (contentHash: string) => string
  readonly byText: ReadonlyMap<string, readonly number[]>
}

/** First pause after a model failure; doubles per failure up to the maximum. */
const COOLDOWN_MIN_MS = 5_000
const COOLDOWN_MAX_MS = 300_000

function asInferenceError(err: unknown): PowerContextError {
  if (err instanceof PowerContextError) return err
  return new PowerContextError('inference_unavailable', 'embedding model failed', undefined, {
    cause: err,
  })
}

/**
 * The vector rules of the base class (docs/storage.md), in one place: the database's fixed profile
 * against the configured model, embedding before writes (a failure never blocks the write; a
 * short cool-down keeps writes fast during an outage), query embedding, and the per-scope
 * completeness check ({@link CompletenessCache}).
 */
export class VectorSupport {
  readonly #embedder: Embedder | undefined
  readonly #hashOf: ((contentHash: string) => string) | undefined
  readonly #completeness = new CompletenessCache(
    (h) => this.isValid(h),
    (contentHash) => this.expectedHash(contentHash),
  )
  #state: VectorStatus['state'] = 'not_configured'
  #reason: string | null = null
  #stored: EmbeddingProfile | null = null
  #backlog = false
  #cooldownMs = 0
  #downUntil = 0

  constructor(embedder: Embedder | undefined) {
    this.#embedder = embedder
    this.#hashOf = embedder === undefined ? undefined : embeddingHasher(embedder.profile)
  }

  /**
   * Settles the state at open: fixes the model's profile in the database when none is stored yet;
   * a different stored profile leaves the backend without vectors (`misconfigured`).
   */
  async init(tx: DialectTx, at: string): Promise<void> {
    const vectors = tx.vectors
    this.#stored = (await vectors?.getProfile())?.profile ?? null
    const embedder = this.#embedder
    if (embedder === undefined) return
    if (vectors === undefined) {
      this.#set('unavailable', 'this backend has no vector projection')
      return
    }
    if (this.#stored === null) {
      await vectors.insertProfile(embedder.profile, at)
      this.#stored = embedder.profile
    }
    if (!sameProfile(this.#stored, embedder.profile)) {
      this.#set(
        'misconfigured',
        `profile ${describeProfile(embedder.profile)} does not match the database's profile ${describeProfile(this.#stored)}`,
      )
    } else if (vectors.indexProblem !== null) {
      this.#set('unavailable', vectors.indexProblem)
    } else {
      this.#set('ready', null)
      this.#backlog = true // unknown until the first reindex pass
    }
  }

  #set(state: VectorStatus['state'], reason: string | null): void {
    this.#state = state
    this.#reason = reason
  }

  /** The current state (see {@link VectorStatus}). */
  status(): VectorStatus {
    return Object.freeze({
      state: this.#state,
      reason: this.#reason,
      profile: this.#embedder?.profile ?? null,
      storedProfile: this.#stored,
      backlog: this.#backlog,
      coolingDownUntil:
        Date.now() < this.#downUntil ? new Date(this.#downUntil).toISOString() : null,
    })
  }

  /** True when vectors can be written and searched. */
  get ready(): boolean {
    return this.#state === 'ready'
  }

  /** The profile vectors are written under (ready only). */
  get profile(): EmbeddingProfile | null {
    return this.ready ? (this.#embedder?.profile ?? null) : null
  }

  /** Records whether some active memory may lack its vector. */
  markBacklog(backlog: boolean): void {
    this.#backlog = backlog
  }

  /** A head's vector is valid iff it belongs to the head's version and content under the profile. */
  isValid(h: HeadVectorState): boolean {
    return (
      this.#hashOf !== undefined &&
      h.vectorVersion === h.version &&
      h.vectorContentHash === h.contentHash &&
      h.embeddingHash === this.#hashOf(h.contentHash)
    )
  }

  /** The embedding hash a vector of this content must carry (ready only). */
  expectedHash(contentHash: string): string {
    if (this.#hashOf === undefined) throw new Error('no embedding profile')
    return this.#hashOf(contentHash)
  }

  /**
   * Embeds and unit-normalises texts for the model's profile.
   * @throws PowerContextError `inference_unavailable`, `inference_timeout`, `invalid_inference_output`.
   */
  async embedTexts(texts: readonly string[]): Promise<(readonly number[])[]> {
    const embedder = this.#embedder
    if (embedder === undefined) throw new Error('no embedding model')
    try {
      const raw = await embedder.embed(texts)
      if (!Array.isArray(raw) || raw.length !== texts.length) {
        throw new PowerContextError(
          'invalid_inference_output',
          `embedding model returned ${Array.isArray(raw) ? raw.length : 'no'} vectors for ${texts.length} texts`,
        )
      }
      const out = raw.map((v) => normalizeEmbedding(v, embedder.profile))
      this.#cooldownMs = 0
      this.#downUntil = 0
      return out
    } catch (err) {
      this.#cooldownMs = Math.min(Math.max(this.#cooldownMs * 2, COOLDOWN_MIN_MS), COOLDOWN_MAX_MS)
      this.#downUntil = Date.now() + this.#cooldownMs
      this.#backlog = true
      throw asInferenceError(err)
    }
  }

  /**
   * Embeds the texts a write is about to project, outside its transaction. Never throws: without
   * a ready profile, during a cool-down, or on a model failure it returns undefined and the write
   * commits without vectors (an embedding failure never blocks a write).
   */
  async prepare(texts: readonly string[]): Promise<PreparedVectors | undefined> {
    const profile = this.profile
    if (profile === null || this.#hashOf === undefined || texts.length === 0) return undefined
    if (Date.now() < this.#downUntil) {
      this.#backlog = true
      return undefined
    }
    const distinct = [...new Set(texts)]
    try {
      const vectors = await this.embedTexts(distinct)
      const byText = new Map(distinct.map((t, i) => [t, vectors[i] as readonly number[]]))
      return { profile, hashOf: this.#hashOf, byText }
    } catch {
      return undefined
    }
  }

  /**
   * Embeds a search query. With `failFast` (mode `auto`), a model in its cool-down is not called.
   * @throws PowerContextError `inference_unavailable`, `inference_timeout`, `invalid_inference_output`.
   */
  async embedQuery(query: string, failFast: boolean): Promise<readonly number[]> {
    if (failFast && Date.now() < this.#downUntil) {
      throw new PowerContextError('inference_unavailable', 'embedding model failed recently')
    }
    return (await this.embedTexts([query]))[0] as readonly number[]
  }

  /** The last completeness answer for the scope (possibly outdated), or undefined. */
  completenessHint(scopeId: string): boolean | undefined {
    return this.#completeness.hint(scopeId)
  }

  /**
   * Completeness (docs/search.md): every active head of the scope has a vector row of its current
   * version, content hash and expected embedding hash ({@link CompletenessCache}); false without
   * a ready profile.
   */
  async isComplete(tx: DialectTx, scopeId: string): Promise<boolean> {
    const vectors = tx.vectors
    if (!this.ready || vectors === undefined) return false
    return this.#completeness.check(tx, vectors, scopeId)
  }
}
