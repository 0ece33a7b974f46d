/**
 * What the two agent-host providers (`claude-code`, `codex`) share: their settings, how one
 * structured call runs the CLI (isolated, in an empty temporary directory, one run per call, never
 * retried here), and how a failed run maps to the error codes of every provider. Each host says
 * only how it is invoked and how its output reads.
 */
import { PowerContextError } from '../core/errors.js'
import type {
  GenerationAnswer,
  GenerationProvider,
  GenerationProviderKind,
  GenerationRequest,
  GenerationUsage,
} from './generation-provider.js'
import { checkAnswer, NO_USAGE } from './generation-provider.js'
import type { HostRun, HostRunResult } from './host-process.js'
import { runHost } from './host-process.js'

/** Settings of an agent-host provider. */
export interface HostProviderSettings {
  /** The CLI to run; default `claude` / `codex` (found on PATH). */
  readonly command?: string | undefined
  /** A model the host knows (`haiku`, `gpt-5-mini`); default: the host's own default. */
  readonly model?: string | undefined
  /** Hard timeout of one run (the process group is killed). Default 180 000 ms. */
  readonly timeoutMs?: number | undefined
  /** Extra environment of the runs (tests point the host at a local model server with it). */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Codex only: `-c key=value` overrides (e.g. a custom model provider). */
  readonly config?: readonly string[] | undefined
}

/** Default hard timeout of one host run. */
export const HOST_TIMEOUT_MS_DEFAULT = 180_000
/** Timeout of a `--version` / login check. */
const CHECK_TIMEOUT_MS = 15_000

/** What a host's output says: the answer and usage, or why it failed. */
export type HostOutcome =
  | { readonly ok: true; readonly answer: unknown; readonly usage: GenerationUsage }
  | {
      readonly ok: false
      readonly message: string
      readonly usage: GenerationUsage
      /** A usage or rate limit answered; `resetsAt` when the host said when it ends. */
      readonly rateLimited?: { readonly resetsAt: string | null } | undefined
      readonly notLoggedIn?: boolean | undefined
    }

/** Text that means the host refused for a usage or rate limit. */
export const RATE_LIMIT_TEXT =
  /usage limit|rate limit|hit your (?:\S+ )*limit|too many requests|\b429\b|quota|usage_limit_reached/i
/** Text that means the host is not logged in. */
export const LOGIN_TEXT =
  /not logged in|please run \/login|invalid api key|authentication|unauthori[sz]ed|\b401\b|login required/i

/** An agent host's CLI as a generation provider; see the module comment. */
export abstract class HostProvider implements GenerationProvider {
  readonly kind: GenerationProviderKind
  readonly model: string
  /** What the user runs to log in. */
  readonly #loginHint: string
  protected readonly settings: HostProviderSettings
  protected readonly command: string
  readonly #timeoutMs: number

  constructor(
    host: { kind: GenerationProviderKind; command: string; loginHint: string },
    settings: HostProviderSettings,
  ) {
    const defaultCommand = host.command
    this.kind = host.kind
    this.#loginHint = host.loginHint
    this.settings = settings
    this.command = settings.command ?? defaultCommand
    this.model = settings.model ?? `${defaultCommand} default`
    this.#timeoutMs = Math.max(1, settings.timeoutMs ?? HOST_TIMEOUT_MS_DEFAULT)
  }

  /** The run of one structured call. */
  protected abstract invocation(request: GenerationRequest): Omit<HostRun, 'timeoutMs'>
  /** Reads a finished run's output. */
  protected abstract outcome(result: HostRunResult): HostOutcome
  /** The login check's run, or null when the host cannot tell without a model call. */
  protected abstract loginCheck(): {
    args: string[]
    loggedIn: (r: HostRunResult) => boolean
  } | null

  async complete(request: GenerationRequest): Promise<GenerationAnswer> {
    const result = await runHost({ ...this.invocation(request), timeoutMs: this.#timeoutMs })
    const name = this.command
    if (result.spawnError !== null)
      throw failure(
        'inference_unavailable',
        `${name} could not run: ${result.spawnError}`,
        0,
        NO_USAGE,
        {
          reason: 'host_missing',
        },
      )
    if (result.timedOut)
      throw failure(
        'inference_timeout',
        `${name} did not answer within ${this.#timeoutMs} ms (killed)`,
        1,
        NO_USAGE,
      )
    const out = this.outcome(result)
    if (!out.ok) {
      const details: Record<string, unknown> = {}
      if (out.rateLimited !== undefined) {
        details['reason'] = 'rate_limited'
        if (out.rateLimited.resetsAt !== null) details['retry_after'] = out.rateLimited.resetsAt
      } else if (out.notLoggedIn === true) details['reason'] = 'not_logged_in'
      throw failure('inference_unavailable', `${name}: ${out.message}`, 1, out.usage, details)
    }
    try {
      return { json: checkAnswer(request, out.answer), usage: out.usage, calls: 1 }
    } catch (err) {
      const e = err as PowerContextError
      throw failure('invalid_inference_output', e.message, 1, out.usage)
    }
  }

  /**
   * Readiness without a model call: the CLI runs (`--version`) and, where the host can tell,
   * is logged in; `ready` or `unavailable: …` saying what to do.
   */
  async probe(): Promise<string> {
    const version = await runHost({
      command: this.command,
      args: ['--version'],
      input: '',
      env: this.settings.env,
      timeoutMs: CHECK_TIMEOUT_MS,
    })
    if (version.spawnError !== null)
      return `unavailable: ${this.command} not found (install it or put it on PATH)`
    if (version.timedOut || version.code !== 0)
      return `unavailable: \`${this.command} --version\` failed`
    const login = this.loginCheck()
    if (login === null) return 'ready'
    const status = await runHost({
      command: this.command,
      args: login.args,
      input: '',
      env: this.settings.env,
      timeoutMs: CHECK_TIMEOUT_MS,
    })
    return login.loggedIn(status)
      ? 'ready'
      : `unavailable: ${this.command} is not logged in (run \`${this.#loginHint}\`)`
  }
}

function failure(
  code: 'inference_unavailable' | 'inference_timeout' | 'invalid_inference_output',
  message: string,
  calls: number,
  usage: GenerationUsage,
  extra: Record<string, unknown> = {},
): PowerContextError {
  return new PowerContextError(code, message, {
    ...extra,
    retriable: false,
    calls,
    usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
  })
}

/** A reset time in a host's message: `…|<unix seconds>` (Claude Code's usage-limit form). */
export function resetTimeIn(text: string): string | null {
  const epoch = /\|(\d{10})\b/.exec(text)
  if (epoch !== null) return new Date(Number(epoch[1]) * 1000).toISOString()
  const seconds = /(?:resets?_in_seconds|try again in)\D{0,3}(\d+)\s*(?:s|sec|seconds)?\b/i.exec(
    text,
  )
  if (seconds !== null) return new Date(Date.now() + Number(seconds[1]) * 1000).toISOString()
  return null
}
