/**
 * The one interface between extraction and a generation model: a chat with a JSON schema, answered
 * with the parsed JSON and what it cost. Every provider — an OpenAI-compatible endpoint, the user's
 * own `claude -p` or `codex exec` — implements it, and the planner knows nothing else about them.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'

import { PowerContextError } from '../core/errors.js'

/** One structured call: system + user message, answer constrained by a JSON schema. */
export interface GenerationRequest {
  readonly system: string
  readonly user: string
  readonly schemaName: string
  readonly schema: Readonly<Record<string, unknown>>
}

/** Tokens a call used, as the provider reports them (0 when it reports none). */
export interface GenerationUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The validated answer of one structured call. */
export interface GenerationAnswer {
  /** The parsed JSON answer; it matches the request's schema. */
  readonly json: unknown
  /** Tokens of every request the call made, retries included. */
  readonly usage: GenerationUsage
  /** Requests (HTTP requests or CLI runs) the call made, retries included. */
  readonly calls: number
}

/** Which kind of provider answers: wire `extraction.provider`. */
export type GenerationProviderKind = 'openai' | 'claude-code' | 'codex'

/** A generation model that answers with JSON matching a schema. */
export interface GenerationProvider {
  readonly kind: GenerationProviderKind
  /** The model id, or the host's name when the host picks its own model. */
  readonly model: string
  /**
   * The parsed JSON answer, validated against `schema`.
   * @throws PowerContextError `inference_timeout`, `inference_unavailable` (details.reason
   *   `rate_limited` with `retry_after` when the provider refused for a usage limit),
   *   `invalid_inference_output` (after the retries). Each error carries `details.usage` and
   *   `details.calls` when requests were made, so a budget can count them.
   */
  complete(request: GenerationRequest): Promise<GenerationAnswer>
  /** Readiness: `ready`, `timeout` or `unavailable: …` (cheap; no completion is requested). */
  probe(): Promise<string>
}

/** Zero usage. */
export const NO_USAGE: GenerationUsage = { inputTokens: 0, outputTokens: 0 }

/** The sum of two usages. */
export function addUsage(a: GenerationUsage, b: GenerationUsage): GenerationUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  }
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

/** `invalid_inference_output` with the message every provider uses. */
export function invalidOutput(message: string): PowerContextError {
  return new PowerContextError('invalid_inference_output', `generation model: ${message}`)
}

/**
 * Checks an answer against the request's schema: a string is parsed as JSON first.
 * @throws PowerContextError `invalid_inference_output`.
 */
export function checkAnswer(request: GenerationRequest, answer: unknown): unknown {
  let value = answer
  if (typeof answer === 'string') {
    try {
      value = JSON.parse(answer)
    } catch {
      throw invalidOutput('the answer is not JSON')
    }
  }
  const validate = validatorOf(request.schema)
  if (!validate(value)) {
    const e = validate.errors?.[0]
    throw invalidOutput(
      `the answer does not match ${request.schemaName}: ${e?.instancePath || '/'} ${e?.message ?? ''}`,
    )
  }
  return value
}

/** A whole number of tokens from a provider's usage field (anything else counts as 0). */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0
}
