/**
 * Runs the real agent hosts headless, the way a user's machine would, but sealed: `claude -p` and
 * `codex exec` (the pinned devDependencies in `node_modules/.bin`) with a temporary HOME (and
 * CODEX_HOME) of their own, a model on loopback, their non-essential traffic switched off by
 * their own settings, and every proxy variable pointing at an {@link EgressGuard} so that any
 * other address is refused and recorded. The environment is built from nothing but PATH: no
 * variable of the machine (a real API key, a PowerContext setting) reaches the host.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../../node_modules/.bin/', import.meta.url))
export const CLAUDE_BIN = join(BIN, 'claude')
export const CODEX_BIN = join(BIN, 'codex')

/** What one headless turn printed, how it ended and how long it took. */
export interface HostRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** A sealed home for one host run: HOME, and Codex's CODEX_HOME inside it. */
export interface HostHome {
  readonly home: string
  readonly codexHome: string
}

/** Makes `home/.codex` (Codex's home) and `home/.claude`. */
export function hostHome(home: string): HostHome {
  mkdirSync(join(home, '.codex'), { recursive: true })
  mkdirSync(join(home, '.claude'), { recursive: true })
  return { home, codexHome: join(home, '.codex') }
}

/** Claude Code's switches for no traffic but the model's (each one its documented variable). */
export const CLAUDE_QUIET_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
}

/**
 * Codex's user config for a loopback model: the provider (no retries, so a fault shows at once)
 * and everything that would call out switched off (analytics, plugins, apps, update check).
 * `extra` is appended as it is (TOML).
 */
export function codexConfig(modelUrl: string, extra = ''): string {
  return [
    'model = "scripted"',
    'model_provider = "local"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.local]',
    'name = "local"',
    `base_url = "${modelUrl}/v1"`,
    'wire_api = "responses"',
    'env_key = "LOCAL_MODEL_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    '',
    extra,
  ].join('\n')
}

/** Writes {@link codexConfig} as the home's `config.toml`. */
export function writeCodexConfig(h: HostHome, modelUrl: string, extra = ''): void {
  writeFileSync(join(h.codexHome, 'config.toml'), codexConfig(modelUrl, extra))
}

/** One host process: the environment from PATH up, stdin closed, killed after `timeoutMs`. */
export function runHost(
  bin: string,
  args: readonly string[],
  o: { cwd: string; env: Record<string, string>; timeoutMs?: number | undefined },
): Promise<HostRun> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: o.cwd,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started })
    })
  })
}

/** What a headless turn is given besides its prompt. */
export interface TurnOptions {
  readonly home: HostHome
  readonly cwd: string
  readonly modelUrl: string
  /** The {@link EgressGuard}'s variables. */
  readonly proxyEnv: Record<string, string>
  readonly args?: readonly string[]
  readonly env?: Record<string, string>
  readonly timeoutMs?: number
}

/** `claude -p PROMPT --output-format json ARGS…` against the loopback model. */
export function runClaude(prompt: string, o: TurnOptions): Promise<HostRun> {
  return runHost(CLAUDE_BIN, ['-p', prompt, '--output-format', 'json', ...(o.args ?? [])], {
    cwd: o.cwd,
    timeoutMs: o.timeoutMs,
    env: {
      HOME: o.home.home,
      ANTHROPIC_BASE_URL: o.modelUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test-loopback',
      ...CLAUDE_QUIET_ENV,
      ...o.proxyEnv,
      ...o.env,
    },
  })
}

/**
 * `codex exec ARGS… PROMPT` against the loopback model (its provider is in the home's
 * `config.toml`, see {@link writeCodexConfig}); `--skip-git-repo-check` so a plain directory works.
 */
export function runCodex(prompt: string, o: TurnOptions): Promise<HostRun> {
  return runHost(CODEX_BIN, ['exec', '--skip-git-repo-check', ...(o.args ?? []), prompt], {
    cwd: o.cwd,
    timeoutMs: o.timeoutMs,
    env: {
      HOME: o.home.home,
      CODEX_HOME: o.home.codexHome,
      LOCAL_MODEL_KEY: 'test-loopback',
      ...o.proxyEnv,
      ...o.env,
    },
  })
}
