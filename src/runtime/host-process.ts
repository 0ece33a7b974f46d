/**
 * Runs an agent host's CLI (`claude`, `codex`) for one extraction call: in a fresh, empty temporary
 * directory (never the user's repository), with the prompt on stdin, and a hard timeout that kills
 * the whole process group (the CLIs start helpers that would otherwise keep the pipes open).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** One run of a host CLI. */
export interface HostRun {
  readonly command: string
  readonly args: readonly string[]
  /** Written to stdin, which is then closed. */
  readonly input: string
  /** Set on top of the server's environment. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly timeoutMs: number
  /** Files to write into the run's directory before it starts (name → content). */
  readonly files?: Readonly<Record<string, string>> | undefined
}

/** How a run ended. */
export interface HostRunResult {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** The hard timeout killed it. */
  readonly timedOut: boolean
  /** The command was not found (`ENOENT`) or could not start. */
  readonly spawnError: string | null
  readonly wallMs: number
}

/** At most this much of stdout / stderr is kept (a run printing more is cut, not stalled). */
const OUTPUT_CAP = 8 * 1024 * 1024
/** Time between SIGTERM and SIGKILL of a timed-out run. */
const KILL_GRACE_MS = 2_000

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** Runs the CLI in an empty temporary directory (removed afterwards); never throws. */
export async function runHost(run: HostRun): Promise<HostRunResult> {
  const dir = await mkdtemp(join(tmpdir(), 'powercontext-extract-'))
  const started = Date.now()
  try {
    const files: Record<string, string> = {}
    for (const [name, content] of Object.entries(run.files ?? {})) {
      const path = join(dir, name)
      await writeFile(path, content)
      files[name] = path
    }
    const args = run.args.map((a) =>
      a.replace(/\{file:([^}]+)\}/g, (_, n: string) => files[n] ?? n),
    )
    return await new Promise<HostRunResult>((resolve) => {
      let stdout = ''
      let stderr = ''
      let timedOut = false
      let spawnError: string | null = null
      const child = spawn(run.command, args, {
        cwd: dir,
        env: { ...process.env, ...run.env },
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      const timer = setTimeout(() => {
        timedOut = true
        killGroup(child.pid, 'SIGTERM')
        setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS).unref()
      }, run.timeoutMs)
      child.stdout.on('data', (d: Buffer) => {
        if (stdout.length < OUTPUT_CAP) stdout += d.toString()
      })
      child.stderr.on('data', (d: Buffer) => {
        if (stderr.length < OUTPUT_CAP) stderr += d.toString()
      })
      child.stdin.on('error', () => undefined)
      child.on('error', (err) => {
        spawnError = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : err.message
      })
      // A helper the CLI left behind must not outlive it (nor hold its pipes open).
      child.on('exit', () => killGroup(child.pid, 'SIGKILL'))
      child.on('close', (code) => {
        clearTimeout(timer)
        resolve({ code, stdout, stderr, timedOut, spawnError, wallMs: Date.now() - started })
      })
      child.stdin.end(run.input)
    })
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined)
  }
}
