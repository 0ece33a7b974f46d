import { createHash } from 'node:crypto'

import { analyzeTokens } from '../core/analyzer.js'
import type { Embedder, EmbeddingProfile } from '../core/embedding.js'
import { makeEmbeddingProfile, normalizeEmbedding } from '../core/embedding.js'
import { PowerContextError } from '../core/errors.js'

export type { Embedder, EmbeddingProfile } from '../core/embedding.js'

/** Settings of an OpenAI-compatible embeddings endpoint (`POST {baseUrl}/v1/embeddings`). */
export interface OpenAiEmbedderSettings {
  /** Server root, e.g. `http://127.0.0.1:8080`; a trailing `/v1` is accepted too. */
  readonly baseUrl: string
  readonly model: string
  readonly dimension: number
  readonly profileId: string
  /** Name of the environment variable holding the API key (sent as a bearer token); none when absent. */
  readonly apiKeyEnv?: string | undefined
  /** Per-request timeout. Default 10 000 ms. */
  readonly timeoutMs?: number | undefined
  /** Texts per request. Default 64. */
  readonly batchSize?: number | undefined
}

/** Default per-request timeout of an embeddings call. */
export const EMBEDDING_TIMEOUT_MS_DEFAULT = 10_000
/** Default number of texts per embeddings request. */
export const EMBEDDING_BATCH_SIZE_DEFAULT = 64

function unavailable(message: string, cause?: unknown): PowerContextError {
  return new PowerContextError('inference_unavailable', message, undefined, { cause })
}

function invalidOutput(message: string): PowerContextError {
  return new PowerContextError('invalid_inference_output', `embeddings response: ${message}`)
}

/** Endpoint URL: `{root}/v1/embeddings`, whether or not `baseUrl` already ends in `/v1`. */
export function embeddingsUrl(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, '')
  return /\/v1$/.test(root) ? `${root}/embeddings` : `${root}/v1/embeddings`
}

/**
 * An embedding model behind any OpenAI-compatible `/v1/embeddings` endpoint: `POST {model, input:
 * [texts]}` → `{data: [{embedding, index}]}`. Texts are sent in batches; vectors come back in input
 * order (by `index`), validated against the profile's dimension (normalisation is the caller's).
 * @throws PowerContextError `inference_timeout` (timeout, HTTP 408/504), `inference_unavailable`
 *   (network failure, any other non-2xx), `invalid_inference_output` (malformed response).
 */
export class OpenAiCompatibleEmbedder implements Embedder {
  readonly profile: EmbeddingProfile
  readonly #url: string
  readonly #apiKeyEnv: string | undefined
  readonly #timeoutMs: number
  readonly #batchSize: number

  constructor(settings: OpenAiEmbedderSettings) {
    this.profile = makeEmbeddingProfile(settings)
    let url: URL
    try {
      url = new URL(embeddingsUrl(settings.baseUrl))
    } catch {
      throw new PowerContextError(
        'invalid_request',
        `embedding url is not a URL: ${settings.baseUrl}`,
      )
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new PowerContextError('invalid_request', 'embedding url must be http(s)')
    }
    this.#url = url.toString()
    this.#apiKeyEnv = settings.apiKeyEnv
    this.#timeoutMs = settings.timeoutMs ?? EMBEDDING_TIMEOUT_MS_DEFAULT
    this.#batchSize = Math.max(1, settings.batchSize ?? EMBEDDING_BATCH_SIZE_DEFAULT)
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    const out: number[][] = []
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      out.push(...(await this.#request(texts.slice(i, i + this.#batchSize))))
    }
    return out
  }

  async #request(input: readonly string[]): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    const key = this.#apiKeyEnv === undefined ? undefined : process.env[this.#apiKeyEnv]
    if (key !== undefined && key !== '') headers['authorization'] = `Bearer ${key}`
    let res: Response
    try {
      res = await fetch(this.#url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.profile.model, input }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') {
        throw new PowerContextError(
          'inference_timeout',
          `embedding model did not answer within ${this.#timeoutMs} ms`,
          undefined,
          { cause: err },
        )
      }
      throw unavailable(`embedding model unreachable: ${(err as Error).message}`, err)
    }
    if (res.status === 408 || res.status === 504) {
      await res.body?.cancel()
      throw new PowerContextError('inference_timeout', `embedding model timed out (${res.status})`)
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw unavailable(`embedding model answered HTTP ${res.status}`)
    }
    let body: unknown
    try {
      body = await res.json()
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') {
        throw new PowerContextError('inference_timeout', 'embedding response timed out')
      }
      throw invalidOutput('not JSON')
    }
    return this.#vectors(body, input.length)
  }

  #vectors(body: unknown, count: number): number[][] {
    const data = (body as { data?: unknown } | null)?.data
    if (!Array.isArray(data) || data.length !== count) {
      throw invalidOutput(`expected ${count} embeddings in data[]`)
    }
    const out = new Array<number[] | undefined>(count)
    data.forEach((item: unknown, position) => {
      const { embedding, index } = (item ?? {}) as { embedding?: unknown; index?: unknown }
      const at = index === undefined ? position : index
      if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= count) {
        throw invalidOutput(`bad index ${String(at)}`)
      }
      if (out[at] !== undefined) throw invalidOutput(`index ${at} repeated`)
      if (!Array.isArray(embedding))
        throw invalidOutput(`data[${position}].embedding is not an array`)
      normalizeEmbedding(embedding, this.profile)
      out[at] = embedding as number[]
    })
    return out as number[][]
  }
}

const TOKEN_CACHE_LIMIT = 50_000

/**
 * A deterministic stand-in for an embedding model, for tests and benchmarks only: it is **not a
 * semantic model**. Each Analyzer v1 token gets a pseudo-random unit vector seeded by a hash of the
 * token; a text's vector is the sum of its tokens' vectors, unit-normalised. Texts sharing words
 * are therefore close (cosine ≈ shared / √(|a|·|b|) over distinct tokens) and unrelated texts are
 * nearly orthogonal. A text without tokens is embedded as one pseudo-token of its whole text.
 */
export class DeterministicEmbedder implements Embedder {
  readonly profile: EmbeddingProfile
  readonly #cache = new Map<string, Float64Array>()
  /** Texts embedded so far (tests use it to see when a model was called). */
  calls = 0

  constructor(dimension: number, profileId = `deterministic-${dimension}`) {
    this.profile = makeEmbeddingProfile({
      profileId,
      model: 'powercontext-deterministic-v1',
      dimension,
    })
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    this.calls += texts.length
    return texts.map((t) => this.embedSync(t))
  }

  /** The same vector as {@link embed}, synchronously (benchmarks). */
  embedSync(text: string): number[] {
    const tokens = new Set(analyzeTokens(text))
    if (tokens.size === 0) tokens.add(`\u0000${text}`)
    const sum = new Float64Array(this.profile.dimension)
    for (const token of tokens) {
      const v = this.#tokenVector(token)
      for (let i = 0; i < sum.length; i += 1) sum[i] = (sum[i] as number) + (v[i] as number)
    }
    return [...normalizeEmbedding(sum, this.profile)]
  }

  #tokenVector(token: string): Float64Array {
    const hit = this.#cache.get(token)
    if (hit !== undefined) return hit
    const seed = createHash('sha256').update(token, 'utf8').digest()
    let state = seed.readUInt32LE(0) ^ seed.readUInt32LE(4)
    const v = new Float64Array(this.profile.dimension)
    for (let i = 0; i < v.length; i += 1) {
      // mulberry32: a tiny, well-mixed 32-bit generator; centred uniform components.
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      v[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5
    }
    if (this.#cache.size >= TOKEN_CACHE_LIMIT) this.#cache.clear()
    this.#cache.set(token, v)
    return v
  }
}

/** Embedding settings as the server and CLI take them (all four required together). */
export interface EmbeddingSettings {
  readonly url: string
  readonly model: string
  readonly dimension: number
  readonly profileId: string
  /** Environment variable holding the API key; default `POWERCONTEXT_SERVER_EMBEDDING_API_KEY`. */
  readonly apiKeyEnv?: string | undefined
  readonly timeoutMs?: number | undefined
  readonly batchSize?: number | undefined
}

/** Builds the OpenAI-compatible embedder of the given settings. */
export function createEmbedder(settings: EmbeddingSettings): Embedder {
  return new OpenAiCompatibleEmbedder({
    baseUrl: settings.url,
    model: settings.model,
    dimension: settings.dimension,
    profileId: settings.profileId,
    apiKeyEnv: settings.apiKeyEnv ?? 'POWERCONTEXT_SERVER_EMBEDDING_API_KEY',
    timeoutMs: settings.timeoutMs,
    batchSize: settings.batchSize,
  })
}
