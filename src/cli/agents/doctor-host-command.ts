import type { Command } from 'commander'

import type { CliIo } from '../cli-io.js'
import { CliUsageError, EXIT_FAILURE, EXIT_OK, printError } from '../cli-io.js'
import { DEFAULT_SERVER_URL } from '../doctor-command.js'
import { clientToken, remoteSettings } from '../remote-settings.js'
import { doctorLevels, installedServerUrl, runAgentDoctor } from './agent-doctor.js'
import { AGENT_HOSTS, isAgentHost } from './hosts/index.js'
import { projectDir } from './setup-command.js'

/**
 * `doctor <host> [--project DIR]`: the server is `--server-url` (or
 * `POWERCONTEXT_CLIENT_SERVER_URL`), else the one the host's MCP entry names, else the default.
 * One line per check; exit 0 when nothing failed, else 1.
 */
export async function runHostDoctor(
  hostArg: string,
  projectArg: string | undefined,
  cmd: Command,
  io: CliIo,
  setExit: (code: number) => void,
): Promise<void> {
  const json = cmd.optsWithGlobals<{ json?: boolean }>().json === true
  try {
    if (!isAgentHost(hostArg))
      throw new CliUsageError(`unknown host ${hostArg}: use ${AGENT_HOSTS.join(' or ')}`)
    const host = hostArg
    const project = await projectDir(projectArg)
    const serverUrl =
      remoteSettings(cmd)?.serverUrl ??
      (await installedServerUrl(doctorLevels(host, project))) ??
      DEFAULT_SERVER_URL
    const report = await runAgentDoctor({ host, project, serverUrl, token: clientToken(cmd) })
    if (json) io.out(JSON.stringify(report))
    else
      for (const c of report.checks)
        io.out(`${{ pass: 'ok  ', fail: 'FAIL', skip: 'skip' }[c.status]} ${c.name}: ${c.detail}`)
    setExit(report.ok ? EXIT_OK : EXIT_FAILURE)
  } catch (err) {
    setExit(printError(io, err, json))
  }
}
