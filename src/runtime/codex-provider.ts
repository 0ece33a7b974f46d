/**
 * The `codex` generation provider: the user's own `codex exec` with the user's own login
 * (`$CODEX_HOME/auth.json`: a ChatGPT plan or a saved API key), asked for structured output with
 * `--output-schema FILE`. Isolated: `--ignore-user-config` (the user's `config.toml` — its MCP
 * servers, profiles, hook trust — is not read; login still is), hooks, plugins, apps, memories,
 * goals, the shell tool and the other built-in tools turned off, a read-only sandbox,
 * `--ephemeral` (no session saved), no environment context, low reasoning effort. Token usage is
 * read from the `--json` event stream (`turn.completed`).
 */
import type { GenerationRequest } from './generation-provider.js'
import { tokenCount } from './generation-provider.js'
import type { HostRun, HostRunResult } from './host-process.js'
import type { HostOutcome, HostProviderSettings } from './host-provider.js'
import { HostProvider, LOGIN_TEXT, RATE_LIMIT_TEXT, resetTimeIn } from './host-provider.js'

/** Codex features an extraction run turns off. */
const FEATURES_OFF = [
  'hooks',
  'plugins',
  'remote_plugin',
  'apps',
  'memories',
  'goals',
  'multi_agent',
  'skill_search',
  'shell_tool',
  'image_generation',
  'browser_use',
  'computer_use',
] as const

/** The flags that isolate a `codex exec` run (before the schema flag and overrides). */
export const CODEX_ISOLATION_ARGS = [
  'exec',
  '--ignore-user-config',
  '--ephemeral',
  '--sandbox',
  'read-only',
  '--skip-git-repo-check',
  '--color',
  'never',
  '--json',
  '-c',
  'include_environment_context=false',
  '-c',
  'analytics.enabled=false',
  '-c',
  'model_reasoning_effort="low"',
  ...FEATURES_OFF.flatMap((f) => ['--disable', f]),
] as const

interface CodexEvent {
  readonly type?: string
  readonly message?: string
  readonly error?: { readonly message?: string }
  readonly item?: { readonly type?: string; readonly text?: string; readonly message?: string }
  readonly usage?: Record<string, unknown>
}

export class CodexProvider extends HostProvider {
  constructor(settings: HostProviderSettings = {}) {
    super({ kind: 'codex', command: 'codex', loginHint: 'codex login' }, settings)
  }

  protected invocation(request: GenerationRequest): Omit<HostRun, 'timeoutMs'> {
    const args: string[] = [...CODEX_ISOLATION_ARGS, '--output-schema', '{file:schema.json}']
    for (const c of this.settings.config ?? []) args.push('-c', c)
    if (this.settings.model !== undefined) args.push('-m', this.settings.model)
    args.push('-')
    return {
      command: this.command,
      args,
      // Codex has no system prompt of a run's own: the instructions lead the prompt.
      input: `${request.system}\n\n---\n\n${request.user}`,
      env: { ...this.settings.env },
      files: { 'schema.json': JSON.stringify(request.schema) },
    }
  }

  protected outcome(run: HostRunResult): HostOutcome {
    let answer: string | undefined
    let failed: string | undefined
    let inputTokens = 0
    let outputTokens = 0
    for (const line of run.stdout.split('\n')) {
      if (!line.startsWith('{')) continue
      let e: CodexEvent
      try {
        e = JSON.parse(line) as CodexEvent
      } catch {
        continue
      }
      if (e.type === 'item.completed' && e.item?.type === 'agent_message') answer = e.item.text
      else if (e.type === 'turn.completed') {
        inputTokens += tokenCount(e.usage?.['input_tokens'])
        outputTokens += tokenCount(e.usage?.['output_tokens'])
      } else if (e.type === 'turn.failed') failed = e.error?.message ?? 'the turn failed'
    }
    const usage = { inputTokens, outputTokens }
    if (failed === undefined && run.code !== 0)
      failed = `exit ${run.code}: ${run.stderr.trim().split('\n').at(-1)?.slice(0, 300) ?? ''}`
    if (failed === undefined && answer === undefined) failed = 'no answer in the event stream'
    if (failed !== undefined) {
      const text = `${failed} ${run.stderr.slice(-2000)}`
      return {
        ok: false,
        message: failed.slice(0, 300),
        usage,
        notLoggedIn: LOGIN_TEXT.test(failed),
        ...(RATE_LIMIT_TEXT.test(failed) ? { rateLimited: { resetsAt: resetTimeIn(text) } } : {}),
      }
    }
    return { ok: true, answer, usage }
  }

  protected loginCheck(): { args: string[]; loggedIn: (r: HostRunResult) => boolean } | null {
    // A custom model provider keyed by an environment variable does not use the login.
    if ((this.settings.config ?? []).some((c) => c.includes('env_key'))) return null
    return { args: ['login', 'status'], loggedIn: (r) => r.code === 0 }
  }
}
