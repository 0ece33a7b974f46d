/**
 * The one place flush planning calls the generation model: a structured JSON call, timed, with the
 * token usage the provider reports, counted per window. Everything else in planning goes through
 * {@link askModel}, so another provider (an agent host's own CLI) replaces only this function's
 * body.
 */
import type {
  GenerationProvider,
  GenerationRequest,
  GenerationUsage,
} from './generation-provider.js'

/** What the model calls of one window cost (decision record `model_usage`, flush result). */
export interface ModelUsage {
  /** Calls made, failed ones included. */
  readonly calls: number
  /** Tokens as the provider reported them; calls that reported none add nothing. */
  readonly inputTokens: number
  readonly outputTokens: number
  /** Calls whose provider reported no usage. */
  readonly callsWithoutUsage: number
  /** Wall time spent waiting for the model, in milliseconds. */
  readonly modelMs: number
}

/** {@link ModelUsage} of a planned window, with the planning's wall time. */
export interface WindowUsage extends ModelUsage {
  /** Wall time of planning the window (model calls, retrieval, checks), in milliseconds. */
  readonly wallMs: number
}

/** One finished call, as the planner's observer sees it (success or failure). */
export interface ModelCallRecord {
  readonly schemaName: string
  readonly usage: GenerationUsage | null
  readonly wallMs: number
  /** The error code when the call failed, else null. */
  readonly error: string | null
}

/** Accumulates the calls of one window. */
export class ModelUsageMeter {
  #calls = 0
  #input = 0
  #output = 0
  #without = 0
  #wallMs = 0

  add(call: ModelCallRecord): void {
    this.#calls += 1
    this.#wallMs += call.wallMs
    if (call.usage === null) this.#without += 1
    else {
      this.#input += call.usage.inputTokens
      this.#output += call.usage.outputTokens
    }
  }

  get calls(): number {
    return this.#calls
  }

  totals(): ModelUsage {
    return Object.freeze({
      calls: this.#calls,
      inputTokens: this.#input,
      outputTokens: this.#output,
      callsWithoutUsage: this.#without,
      modelMs: Math.round(this.#wallMs),
    })
  }
}

/** The JSON form of {@link WindowUsage} in decision records. */
export function usageJson(u: WindowUsage): Record<string, number> {
  return {
    calls: u.calls,
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    calls_without_usage: u.callsWithoutUsage,
    model_ms: u.modelMs,
    wall_ms: u.wallMs,
  }
}

/**
 * One structured call: the validated JSON answer. The call is added to `meter` and passed to
 * `observe` whether it succeeds or fails.
 * @throws PowerContextError as {@link GenerationProvider.complete}.
 */
export async function askModel(
  model: GenerationProvider,
  request: GenerationRequest,
  meter: ModelUsageMeter,
  observe?: (call: ModelCallRecord) => void,
): Promise<unknown> {
  const started = performance.now()
  const finish = (usage: GenerationUsage | null, error: string | null): void => {
    const call = {
      schemaName: request.schemaName,
      usage,
      wallMs: performance.now() - started,
      error,
    }
    meter.add(call)
    observe?.(call)
  }
  try {
    const answer = await model.complete(request)
    finish(answer.usage, null)
    return answer.json
  } catch (err) {
    finish(null, (err as { code?: string }).code ?? 'internal_error')
    throw err
  }
}
