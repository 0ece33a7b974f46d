import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'

import type { Command } from 'commander'
import { InvalidArgumentError } from 'commander'

import type { CliIo } from '../cli-io.js'
import { CliUsageError, EXIT_OK, printError } from '../cli-io.js'
import { DEFAULT_SERVER_URL } from '../doctor-command.js'
import { openRepository } from '../git-reader.js'
import { clientToken, remoteSettings } from '../remote-settings.js'
import type { SetupReport } from './agent-setup.js'
import { runSetup } from './agent-setup.js'
import { setupExtraction } from './extract-setup.js'
import type { AgentHost } from './hosts/index.js'
import { AGENT_HOSTS, hostNames, isAgentHost } from './hosts/index.js'

/** Parses the host argument of `setup` and `doctor`. */
export function parseHost(value: string): AgentHost {
  if (isAgentHost(value)) return value
  throw new InvalidArgumentError(`must be one of ${AGENT_HOSTS.join(', ')}`)
}

/** The project a command is about: `--project DIR`, else the work tree (or directory) here. */
export async function projectDir(dir: string | undefined): Promise<string> {
  const start = resolve(dir ?? process.cwd())
  const s = await stat(start).catch(() => undefined)
  if (s?.isDirectory() !== true) throw new CliUsageError(`--project ${start} is not a directory`)
  try {
    return (await openRepository(start)).root
  } catch {
    return start
  }
}

function formatSetup(r: SetupReport, serverUrl: string, where: string): string[] {
  const verb = (s: string): string => (r.dryRun && s !== 'unchanged' ? `would be ${s}` : s)
  const lines = [
    `setup ${r.host} for ${where} (server ${serverUrl})${r.dryRun ? ', dry run' : ''}:`,
  ]
  for (const f of r.files)
    lines.push(
      `  ${f.part.padEnd(8)} ${verb(f.status)}: ${f.path}: ${f.detail}${f.backup === null ? '' : ` (backup ${f.backup})`}`,
    )
  for (const w of r.warnings) lines.push(`warning: ${w}`)
  lines.push(
    r.dryRun
      ? 'dry run: nothing was written'
      : `next: run \`powercontext server run\` if it is not running, then \`powercontext doctor ${r.host}\``,
  )
  return lines
}

/**
 * Registers `setup <host> [--project DIR | --user] [--git-hook] [--allow-writes] [--dry-run]`
 * (docs/agents.md#set-up). The server is `--server-url` (default http://127.0.0.1:8000).
 */
export function registerSetupCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  program
    .command('setup')
    .description(
      `install the PowerContext hooks and MCP server into ${hostNames()} settings (merged, backed up)`,
    )
    .argument('<host>', AGENT_HOSTS.join(' | '), parseHost)
    .option('--project [dir]', "the project's settings (default, for the work tree here)")
    .option('--user', "the user's own settings (all projects)")
    .option('--git-hook', "also run `capture git` from the project's post-commit hook")
    .option(
      '--allow-writes',
      'let the agent call the write tools (remember, update, forget, merge, restore) without asking; read tools always are',
    )
    .option('--dry-run', 'print what would change and write nothing')
    .option(
      '--extract-with <provider>',
      'the model that turns captured sources into memories: claude-code, codex, openai or none (default: this host when its CLI is on PATH); written to the server settings file',
    )
    .action(async (host: AgentHost, o, cmd: Command) => {
      const json = cmd.optsWithGlobals<{ json?: boolean }>().json === true
      try {
        if (o.user === true && o.project !== undefined)
          throw new CliUsageError('use either --project or --user, not both')
        const remote = remoteSettings(cmd)
        const serverUrl = remote?.serverUrl ?? DEFAULT_SERVER_URL
        const project =
          o.user === true
            ? undefined
            : await projectDir(typeof o.project === 'string' ? o.project : undefined)
        const report = await runSetup({
          host,
          project,
          serverUrl,
          serverUrlGiven: remote !== undefined,
          withToken: clientToken(cmd) !== undefined,
          allowWrites: o.allowWrites === true,
          dryRun: o.dryRun === true,
          gitHook: o.gitHook === true ? (project ?? (await projectDir(undefined))) : undefined,
        })
        if (json)
          io.out(
            JSON.stringify({
              server_url: serverUrl,
              host: report.host,
              level: report.level,
              dry_run: report.dryRun,
              files: report.files,
              warnings: report.warnings,
            }),
          )
        else
          for (const line of formatSetup(
            report,
            serverUrl,
            project === undefined ? 'the user' : `project ${project}`,
          ))
            io.out(line)
        const extract = await setupExtraction(host, o.extractWith, {
          dataDir: cmd.optsWithGlobals<{ dataDir?: string }>().dataDir,
          dryRun: o.dryRun === true,
        })
        if (!json) io.out(extract)
        setExit(EXIT_OK)
      } catch (err) {
        setExit(printError(io, err, json))
      }
    })
}
