import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { createInterface } from 'node:readline'

import type { Command } from 'commander'

import type { ExportRecord } from '../storage/spi/export-types.js'
import type { CliIo } from './cli-io.js'
import { EXIT_FAILURE, EXIT_OK } from './cli-io.js'
import type { RunWithRuntime } from './cli-runners.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'

/** Bytes buffered before a write to the export file. */
const CHUNK_BYTES = 1 << 20

/** `3 memories, 5 versions, …` of export or import counts. */
export function summary(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .map(([type, n]) => `${n} ${n === 1 ? type : type === 'memory' ? 'memories' : `${type}s`}`)
    .join(', ')
}

/** The export's records, parsed line by line as the file streams in (never held whole). */
export async function* readRecords(file: string): AsyncGenerator<ExportRecord> {
  const input = file === '-' ? process.stdin : createReadStream(file, { encoding: 'utf8' })
  const { parseExportLine } = await import('../storage/engine/index.js')
  let lineNo = 0
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNo += 1
    if (line.trim() !== '') yield parseExportLine(line, lineNo)
  }
}

/**
 * Registers `admin export` (authoritative rows as JSON lines, to a file or stdout) and
 * `admin import` (into an empty database, then projections rebuilt and `verify` run). Together
 * they move a database between SQLite (`--data-dir`) and MySQL-protocol databases (`--database`).
 */
export function registerTransferCommands(admin: Command, io: CliIo, run: RunWithRuntime): void {
  admin
    .command('export')
    .description('write every authoritative row as JSON lines (one consistent snapshot)')
    .option('--output <file>', 'write to this file instead of stdout')
    .action(async (o: { output?: string }, cmd: Command) =>
      run(cmd, async (rt) => {
        const file = o.output === undefined ? undefined : await open(o.output, 'w')
        try {
          let chunk = ''
          const flush = async (): Promise<void> => {
            if (file !== undefined && chunk !== '') await file.write(chunk)
            chunk = ''
          }
          const counts = await rt.exportRows(async (record) => {
            const line = JSON.stringify(record)
            if (file === undefined) return io.out(line)
            chunk += `${line}\n`
            if (chunk.length >= CHUNK_BYTES) await flush()
          })
          await flush()
          io.err(`exported: ${summary(counts)}`)
          return EXIT_OK
        } finally {
          await file?.close()
        }
      }),
    )

  addEmbeddingOptions(
    admin
      .command('import')
      .description(
        'load an export (file, or - for stdin) into an empty database, rebuild projections, then verify',
      )
      .argument('<file>', 'export file, or - for stdin'),
  ).action(async (file: string, o: EmbeddingFlags, cmd: Command) =>
    run(
      cmd,
      async (rt, json) => {
        const report = await rt.importRows(readRecords(file))
        const verified = await rt.verify()
        if (json) io.out(JSON.stringify({ ...report, verify: verified }))
        else {
          const vectors = report.vectors === undefined ? '' : `, ${report.vectors} vectors embedded`
          io.out(
            `imported: ${summary(report.counts)}; ${report.heads} active memories projected${vectors}`,
          )
          io.out(`verify: ${verified.ok ? 'ok' : 'FAILED'}`)
          for (const p of verified.problems) io.out(`  - ${p}`)
        }
        return verified.ok ? EXIT_OK : EXIT_FAILURE
      },
      () => ({ embedding: embeddingSettings(o) }),
    ),
  )
}
