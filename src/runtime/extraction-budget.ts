/**
 * The daily budget of extraction calls (docs/sources-and-flush.md, "Budget"): at most
 * `callsPerDay` provider calls and `tokensPerDay` tokens (input + output, as the provider reports
 * them) per local calendar day, and a pause after a rate- or usage-limit answer (until the time
 * the provider named, else `backoffMs` — 30 minutes for an agent host, 1 minute for an endpoint —,
 * doubling up to 4 hours while the limit repeats; never a retry loop). While paused, a call fails at once with `inference_unavailable` (`details.reason`
 * `budget_spent` or `rate_limited`, `details.until`): flush leaves the sources pending and the
 * scheduler waits. The state is kept in a small JSON file (the data directory's
 * `extraction-budget.json`) so a restart does not reset it: the plan it protects is the person's
 * on this machine, not the database's.
 */
import { readFileSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

import { PowerContextError } from '../core/errors.js'
import type { GenerationUsage } from './generation-provider.js'

/** Budget settings; 0 means no cap of that kind. */
export interface BudgetSettings {
  readonly callsPerDay: number
  readonly tokensPerDay: number
  /** First pause after a rate limit that names no reset time (doubles while it repeats). */
  readonly backoffMs?: number | undefined
}

/** Default caps for an agent-host provider (justified in docs/sources-and-flush.md). */
export const HOST_BUDGET_DEFAULT: BudgetSettings = {
  callsPerDay: 120,
  tokensPerDay: 1_500_000,
  backoffMs: 30 * 60_000,
}
/**
 * Default caps for an OpenAI-compatible endpoint (billed per token by its owner: no cap); its
 * 429s are per-minute limits, so the first pause is a minute.
 */
export const ENDPOINT_BUDGET_DEFAULT: BudgetSettings = {
  callsPerDay: 0,
  tokensPerDay: 0,
  backoffMs: 60_000,
}

const BACKOFF_MAX_MS = 4 * 60 * 60_000

/** What the budget stands at (wire `extraction.budget`). */
export interface BudgetStatus {
  readonly callsPerDay: number
  readonly tokensPerDay: number
  /** Local day `YYYY-MM-DD` the counts belong to. */
  readonly day: string
  readonly callsToday: number
  readonly tokensToday: number
  /** Calls are refused until then (ISO time), or null. */
  readonly pausedUntil: string | null
  readonly pausedReason: 'budget_spent' | 'rate_limited' | null
}

interface State {
  day: string
  calls: number
  tokens: number
  pausedUntil: number | null
  pausedReason: 'budget_spent' | 'rate_limited' | null
  backoffMs: number
}

function localDay(t: number): string {
  const d = new Date(t)
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`
}

function nextMidnight(t: number): number {
  const d = new Date(t)
  d.setHours(24, 0, 0, 0)
  return d.getTime()
}

/** A daily call and token budget with rate-limit backoff; see the module comment. */
export class ExtractionBudget {
  readonly settings: BudgetSettings
  readonly #file: string | undefined
  readonly #now: () => number
  #state: State
  #saving: Promise<void> = Promise.resolve()

  constructor(settings: BudgetSettings, options: { file?: string; now?: () => number } = {}) {
    this.settings = settings
    this.#file = options.file
    this.#now = options.now ?? Date.now
    this.#state = this.#load()
  }

  #load(): State {
    const fresh: State = {
      day: localDay(this.#now()),
      calls: 0,
      tokens: 0,
      pausedUntil: null,
      pausedReason: null,
      backoffMs: 0,
    }
    if (this.#file === undefined) return fresh
    try {
      const s = JSON.parse(readFileSync(this.#file, 'utf8')) as Partial<State>
      return {
        day: typeof s.day === 'string' ? s.day : fresh.day,
        calls: Number(s.calls) || 0,
        tokens: Number(s.tokens) || 0,
        pausedUntil: typeof s.pausedUntil === 'number' ? s.pausedUntil : null,
        pausedReason:
          s.pausedReason === 'budget_spent' || s.pausedReason === 'rate_limited'
            ? s.pausedReason
            : null,
        backoffMs: Number(s.backoffMs) || 0,
      }
    } catch {
      return fresh
    }
  }

  /** Rolls the counts over at local midnight and ends a pause whose time has come. */
  #current(): State {
    const now = this.#now()
    const s = this.#state
    const day = localDay(now)
    if (s.day !== day) {
      s.day = day
      s.calls = 0
      s.tokens = 0
      if (s.pausedReason === 'budget_spent') {
        s.pausedUntil = null
        s.pausedReason = null
      }
    }
    if (s.pausedUntil !== null && now >= s.pausedUntil) {
      s.pausedUntil = null
      s.pausedReason = null
    }
    return s
  }

  status(): BudgetStatus {
    const s = this.#current()
    return {
      callsPerDay: this.settings.callsPerDay,
      tokensPerDay: this.settings.tokensPerDay,
      day: s.day,
      callsToday: s.calls,
      tokensToday: s.tokens,
      pausedUntil: s.pausedUntil === null ? null : new Date(s.pausedUntil).toISOString(),
      pausedReason: s.pausedReason,
    }
  }

  /** `extraction paused: …` while paused, else null (readiness, doctor, console). */
  pauseMessage(): string | null {
    const st = this.status()
    if (st.pausedUntil === null) return null
    const why =
      st.pausedReason === 'rate_limited' ? 'the model provider rate-limited it' : 'budget spent'
    return `extraction paused: ${why} until ${st.pausedUntil}`
  }

  /**
   * Before a call: refuses while paused or when a cap is reached (which starts the pause until
   * local midnight).
   * @throws PowerContextError `inference_unavailable` with `details.reason` and `details.until`.
   */
  admit(): void {
    const s = this.#current()
    const { callsPerDay, tokensPerDay } = this.settings
    const spent =
      (callsPerDay > 0 && s.calls >= callsPerDay) || (tokensPerDay > 0 && s.tokens >= tokensPerDay)
    if (s.pausedUntil === null && spent) {
      s.pausedUntil = nextMidnight(this.#now())
      s.pausedReason = 'budget_spent'
      this.#save()
    }
    const message = this.pauseMessage()
    if (message !== null)
      throw new PowerContextError('inference_unavailable', message, {
        reason: s.pausedReason,
        until: new Date(s.pausedUntil as number).toISOString(),
        retriable: false,
      })
  }

  /** Counts what a call (or a failed call) used. */
  record(calls: number, usage: GenerationUsage): void {
    const s = this.#current()
    s.calls += calls
    s.tokens += usage.inputTokens + usage.outputTokens
    this.#save()
  }

  /** A call succeeded: the rate-limit backoff starts over. */
  succeeded(): void {
    if (this.#state.backoffMs === 0) return
    this.#state.backoffMs = 0
    this.#save()
  }

  /** The provider answered with a rate or usage limit: pause until `resetsAt` or a backoff. */
  rateLimited(resetsAt: string | null): void {
    const s = this.#current()
    const now = this.#now()
    const first = this.settings.backoffMs ?? 30 * 60_000
    s.backoffMs = Math.min(s.backoffMs === 0 ? first : s.backoffMs * 2, BACKOFF_MAX_MS)
    const named = resetsAt === null ? Number.NaN : Date.parse(resetsAt)
    s.pausedUntil = Number.isFinite(named) && named > now ? named : now + s.backoffMs
    s.pausedReason = 'rate_limited'
    this.#save()
  }

  #save(): void {
    const file = this.#file
    if (file === undefined) return
    const body = JSON.stringify(this.#state)
    this.#saving = this.#saving.then(async () => {
      try {
        await mkdir(dirname(file), { recursive: true })
        await writeFile(`${file}.tmp`, body)
        await rename(`${file}.tmp`, file)
      } catch {
        // The budget still holds in memory; the next save tries again.
      }
    })
  }

  /** Waits for pending saves (tests, shutdown). */
  flushed(): Promise<void> {
    return this.#saving
  }
}
