import { Command, CommanderError } from 'commander'

import { PRODUCT_VERSION } from '../core/product-version.js'
import { registerAdminCommands } from './admin-commands.js'
import { runHostDoctor } from './agents/doctor-host-command.js'
import { AGENT_HOSTS } from './agents/hosts/index.js'
import { registerSetupCommand } from './agents/setup-command.js'
import type { CliIo } from './cli-io.js'
import { databaseOption, EXIT_OK, EXIT_USAGE, printError, PROCESS_IO } from './cli-io.js'
import { createRunners } from './cli-runners.js'
import { registerContextCommand } from './context-command.js'
import { registerDoctorCommand } from './doctor-command.js'
import { registerGitCaptureCommand } from './git-capture-command.js'
import { registerMcpCommand } from './mcp-command.js'
import { registerMemoryCommands } from './memory-commands.js'
import { registerMergeCommands } from './merge-commands.js'
import { defaultScope } from './project-scope.js'
import { addRemoteOptions } from './remote-settings.js'
import { registerServerCommands } from './server-commands.js'
import { registerSourceCommands } from './source-commands.js'

/**
 * The `powercontext` command line. Returns the exit code: 0 success, 1 a typed failure, 2 a
 * usage error. Memory commands act directly on the data directory (`--data-dir`, default
 * `$POWERCONTEXT_HOME` or the platform's user data dir), or on a server through the typed client
 * with `--server-url` (env `POWERCONTEXT_CLIENT_SERVER_URL`).
 */
export async function main(argv: readonly string[], io: CliIo = PROCESS_IO): Promise<number> {
  let exitCode = EXIT_OK
  const setExit = (code: number): void => {
    exitCode = code
  }
  const program = new Command('powercontext')
    .description('PowerContext: versioned memory with evidence for coding agents')
    .version(PRODUCT_VERSION)
    .option('--data-dir <dir>', 'data directory (default $POWERCONTEXT_HOME or the user data dir)')
    .option(
      '--database <url>',
      'a database instead of the data directory, its backend chosen by the URL scheme: mysql://user:pass@host:port/db (OceanBase, MariaDB; docs/storage.md)',
      databaseOption('--database'),
    )
    .option('--json', 'print JSON (wire shapes) instead of text')
    .exitOverride()
    .hook('preAction', defaultScope)
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
  addRemoteOptions(program)

  const { runLocal, runMemory } = createRunners(io, setExit)
  registerMemoryCommands(program, io, runMemory)
  registerMergeCommands(program, io, runMemory)
  registerContextCommand(program, io, runMemory)
  registerSourceCommands(program, io, runMemory)
  registerGitCaptureCommand(program, io, runMemory)
  registerAdminCommands(program, io, { runLocal, runMemory }, setExit)
  registerDoctorCommand(program, io, setExit, runHostDoctor, AGENT_HOSTS)
  registerServerCommands(program, io, setExit)
  registerMcpCommand(program, io, setExit)
  registerSetupCommand(program, io, setExit)
  for (const cmd of program.commands) cmd.exitOverride()

  try {
    await program.parseAsync([...argv])
  } catch (err) {
    if (err instanceof CommanderError) {
      const helpShown =
        err.code === 'commander.helpDisplayed' ||
        err.code === 'commander.version' ||
        err.code === 'commander.help'
      return helpShown ? EXIT_OK : EXIT_USAGE
    }
    return printError(io, err, false)
  }
  return exitCode
}
