/**
 * Metering of extraction calls: {@link BudgetedProvider} puts a provider behind the daily budget
 * (admit before a call, count what it used — failed calls too —, pause on a rate limit) and adds
 * every call to the running totals (`GET /metrics`). Each window's own calls, tokens and wall time
 * are counted by the planner (decision record `details.model_usage`).
 */
import { PowerContextError } from '../core/errors.js'
import type { ExtractionBudget } from './extraction-budget.js'
import type {
  GenerationAnswer,
  GenerationProvider,
  GenerationRequest,
  GenerationUsage,
} from './generation-provider.js'
import { tokenCount } from './generation-provider.js'

/** Calls and tokens of extraction since the runtime opened (`GET /metrics`). */
export interface ExtractionUsage {
  calls: number
  inputTokens: number
  outputTokens: number
  /** Wall time spent waiting for the provider, in milliseconds. */
  wallMs: number
}

function add(into: ExtractionUsage, calls: number, usage: GenerationUsage, wallMs: number): void {
  into.calls += calls
  into.inputTokens += usage.inputTokens
  into.outputTokens += usage.outputTokens
  into.wallMs += wallMs
}

/** What a failed call reported having used (`details.calls`, `details.usage`). */
function usageOfError(err: PowerContextError): { calls: number; usage: GenerationUsage } {
  const u = (err.details?.['usage'] ?? {}) as Record<string, unknown>
  return {
    calls: tokenCount(err.details?.['calls']),
    usage: {
      inputTokens: tokenCount(u['input_tokens']),
      outputTokens: tokenCount(u['output_tokens']),
    },
  }
}

/** A provider behind the budget and the meters; see the module comment. */
export class BudgetedProvider implements GenerationProvider {
  readonly #inner: GenerationProvider
  readonly #budget: ExtractionBudget
  readonly totals: ExtractionUsage = { calls: 0, inputTokens: 0, outputTokens: 0, wallMs: 0 }

  constructor(inner: GenerationProvider, budget: ExtractionBudget) {
    this.#inner = inner
    this.#budget = budget
  }

  get kind(): GenerationProvider['kind'] {
    return this.#inner.kind
  }

  get model(): string {
    return this.#inner.model
  }

  probe(): Promise<string> {
    return this.#inner.probe()
  }

  async complete(request: GenerationRequest): Promise<GenerationAnswer> {
    this.#budget.admit()
    const started = Date.now()
    const meter = (calls: number, usage: GenerationUsage): void => {
      const wall = Date.now() - started
      add(this.totals, calls, usage, wall)
      this.#budget.record(calls, usage)
    }
    try {
      const answer = await this.#inner.complete(request)
      meter(answer.calls, answer.usage)
      this.#budget.succeeded()
      return answer
    } catch (err) {
      if (err instanceof PowerContextError) {
        const used = usageOfError(err)
        meter(used.calls, used.usage)
        if (err.details?.['reason'] === 'rate_limited') {
          const after = err.details['retry_after']
          this.#budget.rateLimited(typeof after === 'string' ? after : null)
        }
      }
      throw err
    }
  }
}
