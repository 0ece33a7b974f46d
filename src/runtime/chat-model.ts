import { PowerContextError } from '../core/errors.js'
import type {
  GenerationAnswer,
  GenerationProvider,
  GenerationRequest,
  GenerationUsage,
} from './generation-provider.js'
import {
  addUsage,
  checkAnswer,
  invalidOutput,
  NO_USAGE,
  tokenCount,
} from './generation-provider.js'

/** Settings of an OpenAI-compatible chat completions endpoint (`POST {url}/v1/chat/completions`). */
export interface GenerationSettings {
  /** Server root, e.g. `http://127.0.0.1:8080`; a trailing `/v1` is accepted too. */
  readonly url: string
  readonly model: string
  /** Environment variable holding the API key (bearer); default `POWERCONTEXT_SERVER_GENERATION_API_KEY`. */
  readonly apiKeyEnv?: string | undefined
  /** Per-request timeout. Default 30 000 ms. */
  readonly timeoutMs?: number | undefined
  /** Requests per call, retries included (invalid output, 5xx, network, timeout; never 429). Default 2. */
  readonly maxRequests?: number | undefined
}

/** Default environment variable of the generation API key. */
export const GENERATION_API_KEY_ENV = 'POWERCONTEXT_SERVER_GENERATION_API_KEY'
/** Default per-request timeout of a generation call. */
export const GENERATION_TIMEOUT_MS_DEFAULT = 30_000
/** Default requests per generation call, the first one included. */
export const GENERATION_MAX_REQUESTS_DEFAULT = 2

/** `{root}/v1/<path>`, whether or not `url` already ends in `/v1`. */
export function openAiUrl(url: string, path: string): string {
  const root = url.replace(/\/+$/, '')
  return /\/v1$/.test(root) ? `${root}/${path}` : `${root}/v1/${path}`
}

const RETRIABLE_STATUS = new Set([408, 409, 425, 500, 502, 503, 504])

/**
 * A generation model behind any OpenAI-compatible `/v1/chat/completions` endpoint, asked for
 * structured output with `response_format: {type: "json_schema", json_schema: {name, strict,
 * schema}}` at temperature 0. The answer (`choices[0].message.content`) is parsed and validated
 * against the schema; invalid output and transient provider failures are retried up to
 * `maxRequests` requests in all — never a 429 (rate limit): the caller's budget backs off instead. Timeouts and HTTP 408/504 map to `inference_timeout`; other
 * provider failures to `inference_unavailable`; output still invalid after the retries to
 * `invalid_inference_output`.
 */
export class OpenAiCompatibleChatModel implements GenerationProvider {
  readonly kind = 'openai' as const
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

  async complete(request: GenerationRequest): Promise<GenerationAnswer> {
    let last: PowerContextError | undefined
    let usage = NO_USAGE
    let calls = 0
    for (let attempt = 1; attempt <= this.#maxRequests; attempt += 1) {
      try {
        calls += 1
        const answer = await this.#request(request)
        usage = addUsage(usage, answer.usage)
        return { json: checkAnswer(request, answer.content), usage, calls }
      } catch (err) {
        last = err instanceof PowerContextError ? err : unavailable(String(err), err)
        if (last.details?.['retriable'] === false) break
      }
    }
    last ??= unavailable('no request was sent')
    throw new PowerContextError(
      last.code,
      last.message,
      {
        ...last.details,
        calls,
        usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
      },
      { cause: last },
    )
  }

  async #request(request: GenerationRequest): Promise<{ content: string; usage: GenerationUsage }> {
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
    if (res.status === 429) {
      await res.body?.cancel()
      const after = Number(res.headers.get('retry-after'))
      throw new PowerContextError('inference_unavailable', 'generation model: rate limited (429)', {
        status: 429,
        retriable: false,
        reason: 'rate_limited',
        ...(Number.isFinite(after) && after > 0
          ? { retry_after: new Date(Date.now() + after * 1000).toISOString() }
          : {}),
      })
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
    const choice = (body as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] })
      ?.choices?.[0]?.message
    if (typeof choice?.refusal === 'string' && choice.refusal !== '')
      throw invalidOutput(`the model refused: ${choice.refusal.slice(0, 200)}`)
    if (typeof choice?.content !== 'string') throw invalidOutput('no choices[0].message.content')
    const reported = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } })
      .usage
    return {
      content: choice.content,
      usage: {
        inputTokens: tokenCount(reported?.prompt_tokens),
        outputTokens: tokenCount(reported?.completion_tokens),
      },
    }
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

function unavailable(message: string, cause?: unknown): PowerContextError {
  return new PowerContextError('inference_unavailable', message, undefined, { cause })
}
