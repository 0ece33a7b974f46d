import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import type { Command } from 'commander'

import type { ExportRecord } from '../storage/spi/export-types.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, databaseOption, EXIT_FAILURE, EXIT_OK } from './cli-io.js'
import type { RunWithRuntime } from './cli-runners.js'
import { localDatabase, openLocalRuntime } from './cli-runners.js'
import { readRecords, summary } from './transfer-commands.js'

/**
 * Registers `admin salvage`: every row of the (damaged) database that still verifies, copied into
 * a new, empty database (`--to-data-dir` or `--to-database`), with a list of what could not be
 * (docs/storage.md#damage-verify-and-salvage). Exits 1 when the new database does not verify.
 */
export function registerSalvageCommand(admin: Command, io: CliIo, run: RunWithRuntime): void {
  admin
    .command('salvage')
    .description(
      'copy every row that still verifies into a new, empty database and list what could not be copied',
    )
    .option('--to-data-dir <dir>', 'the new data directory (its database must not exist yet)')
    .option(
      '--to-database <url>',
      'or a new, empty database, its backend chosen by the URL scheme (mysql://…)',
      databaseOption('--to-database'),
    )
    .action(async (o: { toDataDir?: string; toDatabase?: string }, cmd: Command) =>
      run(
        cmd,
        async (source, json) => {
          const target = localDatabase({ dataDir: o.toDataDir, database: o.toDatabase })
          if (o.toDataDir === undefined && o.toDatabase === undefined)
            throw new CliUsageError('admin salvage needs --to-data-dir or --to-database')
          const { SalvagePlanner, salvagedRecords } = await import('../storage/engine/index.js')
          const damaged: string[] = []
          const planner = new SalvagePlanner()
          await source.exportRows(
            (r) => planner.observe(r),
            (row, problem) => damaged.push(`${row}: ${problem}`),
          )
          const plan = planner.plan()
          const dir = await mkdtemp(join(tmpdir(), 'powercontext-salvage-'))
          const file = join(dir, 'salvage.jsonl')
          const rt = await openLocalRuntime(target)
          try {
            const out = await open(file, 'w')
            const pass = salvagedRecords(plan)
            try {
              await source.exportRows(
                async (r: ExportRecord) => {
                  const kept = pass(r)
                  if (kept !== undefined) await out.write(`${JSON.stringify(kept)}\n`)
                },
                () => {},
              )
            } finally {
              await out.close()
            }
            const report = await rt.importRows(readRecords(file))
            const verified = await rt.verify()
            const notCopied = [...plan.dropped].map(([id, why]) => `memory ${id}: ${why}`)
            if (json) {
              io.out(JSON.stringify({ ...report, damaged, notCopied, verify: verified }))
            } else {
              io.out(`salvaged: ${summary(report.counts)}`)
              io.out(`damaged rows left out: ${damaged.length}`)
              for (const d of damaged) io.out(`  - ${d}`)
              io.out(`memories not copied: ${notCopied.length}`)
              for (const n of notCopied) io.out(`  - ${n}`)
              io.out(`verify of the new database: ${verified.ok ? 'ok' : 'FAILED'}`)
              for (const p of verified.problems) io.out(`  - ${p}`)
            }
            return verified.ok ? EXIT_OK : EXIT_FAILURE
          } finally {
            await rt.close()
            await rm(dir, { recursive: true, force: true })
          }
        },
        () => ({ integrityCheckAtOpen: false }),
      ),
    )
}
