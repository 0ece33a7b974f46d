import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

import { PowerContextError } from '../core/errors.js'

/** Settings of an OpenAI-compatible chat completions endpoint (`POST {url}/v1/chat/completions`). */
export interface GenerationSettings {
  /** Server root, e.g. `http://127.0.0.1:8080`; a trailing `/v1` is accepted too. */
  readonly url: string
  readonly model: string
  /** Environment variable holding the API key (bearer); default `POWERCONTEXT_SERVER_GENERATION_API_KEY`. */
  readonly apiKeyEnv?: string | undefined
  /** Per-request timeout. Default 30 000 ms. */
  readonly timeoutMs?: number | undefined
  /** Requests per call, retries included (invalid output, 429, 5xx, network, timeout). Default 2. */
  readonly maxRequests?: number | undefined
}

/** Default environment variable of the generation API key. */
export const GENERATION_API_KEY_ENV = 'POWERCONTEXT_SERVER_GENERATION_API_KEY'
/** Default per-request timeout of a generation call. */
export const GENERATION_TIMEOUT_MS_DEFAULT = 30_000
/** Default requests per generation call, the first one included. */
export const GENERATION_MAX_REQUESTS_DEFAULT = 2

/** One structured call: system + user message, answer constrained by a JSON schema. */
export interface JsonCompletion {
  readonly system: string
  readonly user: string
  readonly schemaName: string
  readonly schema: Readonly<Record<string, unknown>>
}

/** Tokens a call used, as the provider reports them (summed over its retries). */
export interface TokenUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/** A parsed, validated answer and the usage the provider reported (null when it reported none). */
export interface JsonAnswer {
  readonly value: unknown
  readonly usage: TokenUsage | null
}

/** A generation model that answers with JSON matching a schema. */
export interface ChatModel {
  readonly model: string
  /**
   * The parsed JSON answer, validated against `schema`.
   * @throws PowerContextError `inference_timeout`, `inference_unavailable`,
   *   `invalid_inference_output` (after the retries).
   */
  completeJson(request: JsonCompletion): Promise<unknown>
  /** As {@link completeJson}, with the token usage the provider reported; optional. */
  completeJsonWithUsage?(request: JsonCompletion): Promise<JsonAnswer>
  /** Readiness: `ready`, `timeout` or `unavailable: …` (cheap; no completion is requested). */
  probe(): Promise<string>
}

/** `{root}/v1/<path>`, whether or not `url` already ends in `/v1`. */
export function openAiUrl(url: string, path: string): string {
  const root = url.replace(/\/+$/, '')
  return /\/v1$/.test(root) ? `${root}/${path}` : `${root}/v1/${path}`
}

const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: false })
const validators = new WeakMap<object, ValidateFunction>()

function validatorOf(schema: Readonly<Record<string, unknown>>): ValidateFunction {
  let fn = validators.get(schema)
  if (fn === undefined) {
    fn = ajv.compile(schema)
    validators.set(schema, fn)
  }
  return fn
}

const RETRIABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504])

/**
 * A generation model behind any OpenAI-compatible `/v1/chat/completions` endpoint, asked for
 * structured output with `response_format: {type: "json_schema", json_schema: {name, strict,
 * schema}}` at temperature 0. The answer (`choices[0].message.content`) is parsed and validated
 * against the schema; invalid output and transient provider failures are retried up to
 * `maxRequests` requests in all. Timeouts and HTTP 408/504 map to `inference_timeout`; other
 * provider failures to `inference_unavailable`; output still invalid after the retries to
 * `invalid_inference_output`.
 */
export class OpenAiCompatibleChatModel implements ChatModel {
  readonly model: string
  readonly #url: string
  readonly #modelsUrl: string
  readonly #apiKeyEnv: string
  readonly #timeoutMs: number
  readonly #maxRequests: number

  constructor(settings: GenerationSettings) {
    let url: URL
    try {
      url = new URL(openAiUrl(settings.url, 'chat/completions'))
    } catch {
      throw new PowerContextError('invalid_request', `generation url is not a URL: ${settings.url}`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new PowerContextError('invalid_request', 'generation url must be http(s)')
    if (typeof settings.model !== 'string' || settings.model.trim() === '')
      throw new PowerContextError('invalid_request', 'generation model must be named')
    this.model = settings.model
    this.#url = url.toString()
    this.#modelsUrl = openAiUrl(settings.url, 'models')
    this.#apiKeyEnv = settings.apiKeyEnv ?? GENERATION_API_KEY_ENV
    this.#timeoutMs = Math.max(1, settings.timeoutMs ?? GENERATION_TIMEOUT_MS_DEFAULT)
    this.#maxRequests = Math.max(1, settings.maxRequests ?? GENERATION_MAX_REQUESTS_DEFAULT)
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    const key = process.env[this.#apiKeyEnv]
    if (key !== undefined && key !== '') headers['authorization'] = `Bearer ${key}`
    return headers
  }

  async completeJson(request: JsonCompletion): Promise<unknown> {
    return (await this.completeJsonWithUsage(request)).value
  }

  async completeJsonWithUsage(request: JsonCompletion): Promise<JsonAnswer> {
    const validate = validatorOf(request.schema)
    let last: PowerContextError | undefined
    let usage: TokenUsage | null = null
    for (let attempt = 1; attempt <= this.#maxRequests; attempt += 1) {
      try {
        const answer = await this.#request(request)
        usage = addUsage(usage, answer.usage)
        const content = answer.content
        let value: unknown
        try {
          value = JSON.parse(content)
        } catch {
          throw invalidOutput('the answer is not JSON')
        }
        if (!validate(value)) {
          const e = validate.errors?.[0]
          throw invalidOutput(
            `the answer does not match ${request.schemaName}: ${e?.instancePath || '/'} ${e?.message ?? ''}`,
          )
        }
        return { value, usage }
      } catch (err) {
        last = err instanceof PowerContextError ? err : unavailable(String(err), err)
        if (last.details?.['retriable'] === false) break
      }
    }
    throw last ?? unavailable('no request was sent')
  }

  async #request(request: JsonCompletion): Promise<{ content: string; usage: TokenUsage | null }> {
    let res: Response
    try {
      res = await fetch(this.#url, {
        method: 'POST',
        headers: this.#headers(),
        body: JSON.stringify({
          model: this.model,
          temperature: 0,
          messages: [
            { role: 'system', content: request.system },
            { role: 'user', content: request.user },
          ],
          response_format: {
            type: 'json_schema',
            json_schema: { name: request.schemaName, strict: true, schema: request.schema },
          },
        }),
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        throw new PowerContextError(
          'inference_timeout',
          `generation model did not answer within ${this.#timeoutMs} ms`,
          undefined,
          { cause: err },
        )
      throw unavailable(`generation model unreachable: ${(err as Error).message}`, err)
    }
    if (res.status === 408 || res.status === 504) {
      await res.body?.cancel()
      throw new PowerContextError('inference_timeout', `generation model timed out (${res.status})`)
    }
    if (!res.ok) {
      await res.body?.cancel()
      throw new PowerContextError(
        'inference_unavailable',
        `generation model answered HTTP ${res.status}`,
        { status: res.status, retriable: RETRIABLE_STATUS.has(res.status) },
      )
    }
    let body: unknown
    try {
      body = await res.json()
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        throw new PowerContextError('inference_timeout', 'generation response timed out')
      throw invalidOutput('the response is not JSON')
    }
    const reply = body as {
      choices?: { message?: { content?: unknown; refusal?: unknown } }[]
      usage?: { prompt_tokens?: unknown; completion_tokens?: unknown }
    }
    const choice = reply?.choices?.[0]?.message
    if (typeof choice?.refusal === 'string' && choice.refusal !== '')
      throw invalidOutput(`the model refused: ${choice.refusal.slice(0, 200)}`)
    if (typeof choice?.content !== 'string') throw invalidOutput('no choices[0].message.content')
    const input = reply.usage?.prompt_tokens
    const output = reply.usage?.completion_tokens
    const usage =
      typeof input === 'number' && typeof output === 'number'
        ? { inputTokens: input, outputTokens: output }
        : null
    return { content: choice.content, usage }
  }

  async probe(): Promise<string> {
    try {
      const res = await fetch(this.#modelsUrl, {
        headers: this.#headers(),
        signal: AbortSignal.timeout(Math.min(this.#timeoutMs, 2_000)),
      })
      await res.body?.cancel()
      return res.ok ? 'ready' : `unavailable: HTTP ${res.status} from the models endpoint`
    } catch (err) {
      return (err as Error).name === 'TimeoutError'
        ? 'timeout'
        : `unavailable: ${(err as Error).message}`
    }
  }
}

function addUsage(a: TokenUsage | null, b: TokenUsage | null): TokenUsage | null {
  if (a === null || b === null) return a ?? b
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  }
}

function unavailable(message: string, cause?: unknown): PowerContextError {
  return new PowerContextError('inference_unavailable', message, undefined, { cause })
}

function invalidOutput(message: string): PowerContextError {
  return new PowerContextError('invalid_inference_output', `generation model: ${message}`)
}
