import type { Command } from 'commander'

import type { CliIo } from './cli-io.js'
import { EXIT_FAILURE, EXIT_OK } from './cli-io.js'
import type { RunWithRuntime } from './memory-commands.js'

/** Registers `admin verify` and `admin rebuild`. */
export function registerAdminCommands(program: Command, io: CliIo, run: RunWithRuntime): void {
  const admin = program.command('admin').description('maintenance of a data directory')

  admin
    .command('verify')
    .description('check every stored invariant; exits 1 with a report when something is wrong')
    .action(async (_o, cmd: Command) =>
      run(cmd, async (rt, json) => {
        const report = await rt.verify()
        if (json) io.out(JSON.stringify(report))
        else {
          const c = report.counts
          io.out(
            `${report.ok ? 'ok' : 'FAILED'}: ${c.memories} memories, ${c.versions} versions, ${c.heads} projected, ${c.changes} changes`,
          )
          for (const p of report.problems) io.out(`  - ${p}`)
        }
        return report.ok ? EXIT_OK : EXIT_FAILURE
      }),
    )

  admin
    .command('rebuild')
    .description('rebuild projections and indexes from the authoritative rows')
    .action(async (_o, cmd: Command) =>
      run(cmd, async (rt, json) => {
        const report = await rt.rebuild()
        if (json) io.out(JSON.stringify(report))
        else io.out(`rebuilt: ${report.heads} active memories projected`)
        return EXIT_OK
      }),
    )
}
