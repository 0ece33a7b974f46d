import { resolve } from 'node:path'

import type { Command } from 'commander'

import type { CliIo } from './cli-io.js'
import {
  CliUsageError,
  EXIT_FAILURE,
  EXIT_OK,
  parseInteger,
  printError,
  printResult,
} from './cli-io.js'
import type { RunWithMemory, RunWithRuntime } from './cli-runners.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'
import { registerRedactCommand } from './redact-command.js'
import { registerSalvageCommand } from './salvage-command.js'
import { registerTransferCommands } from './transfer-commands.js'
import { registerUpgradeCommand } from './upgrade-command.js'

/**
 * Registers `admin backup`, `admin verify`, `admin rebuild`, `admin reindex`, `admin export`, `admin import`, `admin salvage` and
 * `admin upgrade-from-reference`
 * (local data directory or `--database` only, never `--server-url`).
 */
export function registerAdminCommands(
  program: Command,
  io: CliIo,
  runners: { runLocal: RunWithRuntime; runMemory: RunWithMemory },
  setExit: (code: number) => void,
): void {
  const run = runners.runLocal
  const admin = program.command('admin').description('maintenance of a data directory')
  registerRedactCommand(admin, io, runners.runMemory)

  admin
    .command('backup')
    .description(
      "copy the data directory's database to a new file through SQLite's online backup API: one consistent snapshot, also while a server writes to it",
    )
    .requiredOption('--to <file>', 'the new file (must not exist)')
    .action(async (o: { to: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<{
        dataDir?: string
        database?: string
        serverUrl?: string
        json?: boolean
      }>()
      try {
        if (g.serverUrl !== undefined)
          throw new CliUsageError(
            'admin backup works on a local data directory only; drop --server-url',
          )
        if (g.database !== undefined)
          throw new CliUsageError(
            "admin backup copies the embedded SQLite database; for --database use admin export or the database's own backup",
          )
        // Loaded here: only this command needs the driver.
        const { databasePath, resolveDataDir } = await import('../runtime/data-dir.js')
        const { backupSqliteFile } = await import('../storage/sqlite/sqlite-backup.js')
        const r = await backupSqliteFile(databasePath(resolveDataDir(g.dataDir)), resolve(o.to))
        setExit(
          printResult(io, g.json === true, r, () => [
            `backed up ${r.source} to ${r.target}: ${r.pages} pages, ${r.bytes} bytes, quick_check ok`,
          ]),
        )
      } catch (err) {
        setExit(printError(io, err, g.json === true))
      }
    })

  admin
    .command('verify')
    .description('check every stored invariant; exits 1 with a report when something is wrong')
    .option('--full', "kept for scripts: verify always runs SQLite's full integrity_check now")
    .action(async (o: { full?: boolean }, cmd: Command) =>
      run(
        cmd,
        async (rt, json) => {
          const report = await rt.verify({ full: o.full === true })
          if (json) io.out(JSON.stringify(report))
          else {
            const c = report.counts
            io.out(
              `${report.ok ? 'ok' : 'FAILED'}: ${c.memories} memories, ${c.versions} versions, ${c.heads} projected, ${c.changes} changes`,
            )
            for (const p of report.problems) io.out(`  - ${p}`)
          }
          return report.ok ? EXIT_OK : EXIT_FAILURE
        },
        () => ({ integrityCheckAtOpen: false }),
      ),
    )

  addEmbeddingOptions(
    admin
      .command('rebuild')
      .description(
        'rebuild projections and indexes from the authoritative rows (and re-embed vectors when an embedding model is given)',
      ),
  ).action(async (o: EmbeddingFlags, cmd: Command) =>
    run(
      cmd,
      async (rt, json) => {
        const report = await rt.rebuild()
        if (json) io.out(JSON.stringify(report))
        else {
          const vectors = report.vectors === undefined ? '' : `, ${report.vectors} vectors embedded`
          io.out(`rebuilt: ${report.heads} active memories projected${vectors}`)
        }
        return EXIT_OK
      },
      () => ({ embedding: embeddingSettings(o) }),
    ),
  )

  addEmbeddingOptions(
    admin
      .command('reindex')
      .description(
        'embed every missing or stale vector of active memories with the given embedding model',
      )
      .option(
        '--batch-size <n>',
        'texts per embedding request and write (default 64)',
        parseInteger,
      ),
  ).action(async (o: EmbeddingFlags & { batchSize?: number }, cmd: Command) =>
    run(
      cmd,
      async (rt, json) => {
        // Progress goes to stderr (at most once a second, after a page of heads), so stdout
        // keeps only the report.
        let shown = 0
        const report = await rt.reindex({
          ...(o.batchSize === undefined ? {} : { batchSize: o.batchSize }),
          onProgress: (p) => {
            if (json || Date.now() - shown < 1_000) return
            shown = Date.now()
            io.err(
              `reindex: ${p.scanned} active memories scanned, ${p.embedded} embedded, ${p.remaining} missing`,
            )
          },
        })
        if (json) io.out(JSON.stringify(report))
        else {
          io.out(
            `reindexed: ${report.embedded} vectors embedded, ${report.remaining} missing, ${report.scanned} active memories`,
          )
          if (report.error !== null)
            io.out(`  - stopped: ${report.error.code}: ${report.error.message}`)
        }
        return report.error === null && report.remaining === 0 ? EXIT_OK : EXIT_FAILURE
      },
      () => {
        const embedding = embeddingSettings(o)
        if (embedding === undefined) {
          throw new CliUsageError(
            'reindex needs an embedding model: --embedding-url, --embedding-model, --embedding-dimension and --embedding-profile-id (or POWERCONTEXT_SERVER_EMBEDDING_*)',
          )
        }
        return { embedding }
      },
    ),
  )

  registerTransferCommands(admin, io, run)
  registerSalvageCommand(admin, io, run)
  registerUpgradeCommand(admin, io, run)
}
