/**
 * The `claude-code` generation provider: the user's own `claude -p` (Claude Code headless) with
 * the user's own login and plan, asked for structured output with `--json-schema`. Isolated: no
 * settings files (`--setting-sources ""`, hence none of the user's or any plugin's hooks, MCP
 * servers, permissions or enabled plugins), no MCP servers (`--strict-mcp-config`), no built-in
 * tools (`--tools ""`; the model is offered only Claude Code's `StructuredOutput`), no skills or
 * slash commands, no session saved; its own system prompt replaces Claude Code's. Not `--bare`:
 * that mode reads only `ANTHROPIC_API_KEY`, never a subscription login. Claude Code's own API
 * retries are off (`CLAUDE_CODE_MAX_RETRIES=0`), so a rate limit comes back at once instead of
 * after ten retries.
 */
import type { GenerationRequest } from './generation-provider.js'
import { tokenCount } from './generation-provider.js'
import type { HostRun, HostRunResult } from './host-process.js'
import type { HostOutcome, HostProviderSettings } from './host-provider.js'
import { HostProvider, LOGIN_TEXT, RATE_LIMIT_TEXT, resetTimeIn } from './host-provider.js'

/** The environment of every extraction run of `claude`. */
export const CLAUDE_RUN_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_MAX_RETRIES: '0',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
}

/** The flags that isolate a `claude -p` run (before the schema and prompt flags). */
export const CLAUDE_ISOLATION_ARGS = [
  '-p',
  '--setting-sources',
  '',
  '--strict-mcp-config',
  '--tools',
  '',
  '--disable-slash-commands',
  '--no-session-persistence',
] as const

interface ClaudeResult {
  readonly is_error?: boolean
  readonly result?: unknown
  readonly structured_output?: unknown
  readonly api_error_status?: number | null
  readonly usage?: Record<string, unknown>
}

export class ClaudeCodeProvider extends HostProvider {
  constructor(settings: HostProviderSettings = {}) {
    super({ kind: 'claude-code', command: 'claude', loginHint: 'claude auth login' }, settings)
  }

  protected invocation(request: GenerationRequest): Omit<HostRun, 'timeoutMs'> {
    const args = [
      ...CLAUDE_ISOLATION_ARGS,
      '--output-format',
      'json',
      '--json-schema',
      JSON.stringify(request.schema),
      '--system-prompt',
      request.system,
    ]
    if (this.settings.model !== undefined) args.push('--model', this.settings.model)
    return {
      command: this.command,
      args,
      input: request.user,
      env: { ...CLAUDE_RUN_ENV, ...this.settings.env },
    }
  }

  protected outcome(run: HostRunResult): HostOutcome {
    let parsed: ClaudeResult
    try {
      parsed = JSON.parse(run.stdout.trim()) as ClaudeResult
    } catch {
      const text = `${run.stderr} ${run.stdout}`.trim().slice(0, 300)
      return {
        ok: false,
        message: `exit ${run.code}: ${text || 'no output'}`,
        usage: { inputTokens: 0, outputTokens: 0 },
        notLoggedIn: LOGIN_TEXT.test(text),
        ...(RATE_LIMIT_TEXT.test(text) ? { rateLimited: { resetsAt: resetTimeIn(text) } } : {}),
      }
    }
    const u = parsed.usage ?? {}
    const usage = {
      inputTokens:
        tokenCount(u['input_tokens']) +
        tokenCount(u['cache_creation_input_tokens']) +
        tokenCount(u['cache_read_input_tokens']),
      outputTokens: tokenCount(u['output_tokens']),
    }
    const text = typeof parsed.result === 'string' ? parsed.result : ''
    if (parsed.is_error === true || run.code !== 0) {
      const status = parsed.api_error_status ?? null
      const limited = status === 429 || RATE_LIMIT_TEXT.test(text)
      return {
        ok: false,
        message: text.slice(0, 300) || `exit ${run.code}`,
        usage,
        notLoggedIn: status === 401 || status === 403 || LOGIN_TEXT.test(text),
        ...(limited ? { rateLimited: { resetsAt: resetTimeIn(text) } } : {}),
      }
    }
    return { ok: true, answer: parsed.structured_output ?? text, usage }
  }

  protected loginCheck(): { args: string[]; loggedIn: (r: HostRunResult) => boolean } {
    // `claude auth status` prints {"loggedIn": …} and exits 1 when logged out; no model call.
    return {
      args: ['auth', 'status', '--json'],
      loggedIn: (r) => {
        try {
          return (JSON.parse(r.stdout) as { loggedIn?: unknown }).loggedIn === true
        } catch {
          return false
        }
      },
    }
  }
}
