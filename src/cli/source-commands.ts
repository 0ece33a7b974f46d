import { readFileSync } from 'node:fs'

import type { Command } from 'commander'

import type { FlushResult } from '../runtime/source-flusher.js'
import { toWireFlush, toWireFlushRecords } from '../wire/flush-wire.js'
import { toWireSourceRef } from '../wire/memory-wire.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, parseInteger, printResult } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { addGenerationOptions, extractionOptions } from './generation-options.js'
import { formatFlush } from './memory-format.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'

/** `--metadata`: a JSON object, parsed by the CLI (anything else is a usage error). */
function parseMetadata(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw new CliUsageError('--metadata must be a JSON object')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliUsageError('--metadata must be a JSON object')
  return parsed as Record<string, unknown>
}

/**
 * Registers `capture`, `flush` and `flush-records` (docs/sources-and-flush.md), written once against
 * `MemoryOperations`: local data directory or `--server-url`.
 */
export function registerSourceCommands(program: Command, io: CliIo, run: RunWithMemory): void {
  const print = (json: boolean, wire: unknown, human: () => string[]): number =>
    printResult(io, json, wire, human)

  program
    .command('capture')
    .description('persist a source (evidence) in the scope journal; never creates memory')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option(
      '--source-id <id>',
      'source id (default: generated); same id + same payload = same position',
    )
    .option('--media-type <type>', 'media type (default text/plain; see docs/sources-and-flush.md)')
    .option('--metadata <json>', 'metadata, a JSON object')
    .option('--occurred-at <time>', 'RFC 3339 time the content was produced')
    .argument('[content...]', 'the content; read from stdin when absent or "-"')
    .action(async (words: string[], o, cmd: Command) => {
      return run(cmd, async (ops, json) => {
        const content =
          words.length === 0 || (words.length === 1 && words[0] === '-')
            ? readFileSync(0, 'utf8')
            : words.join(' ')
        const r = await ops.captureSource({
          scopeId: o.scope,
          sourceId: o.sourceId,
          content,
          mediaType: o.mediaType,
          metadata: parseMetadata(o.metadata),
          occurredAt: o.occurredAt,
        })
        return print(
          json,
          { status: r.status, source: toWireSourceRef(r.source), position: r.position },
          () => [`accepted: ${r.source.sourceId} at position ${r.position}`],
        )
      })
    })

  const flush = program
    .command('flush')
    .description('process captured sources after the scope cursor into memory (one window)')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--limit <n>', 'sources per window, 1–1000 (default 100)', parseInteger)
    .option(
      '--until <position>',
      'repeat until the cursor reaches this captured position',
      parseInteger,
    )
  addGenerationOptions(flush).action(async (o, cmd: Command) =>
    run(
      cmd,
      async (ops, json) => {
        if (o.until === undefined) {
          const r = await ops.flush({ scopeId: o.scope, limit: o.limit })
          return print(json, toWireFlush(r), () => formatFlush(r))
        }
        const rounds: FlushResult[] = []
        for (;;) {
          const r = await ops.flush({ scopeId: o.scope, limit: o.limit, until: o.until })
          rounds.push(r)
          if (!json) for (const line of formatFlush(r)) io.out(line)
          if (r.cursor >= o.until || r.status === 'idle') break
        }
        const last = rounds.at(-1) as FlushResult
        // Everything captured is processed but POSITION is not captured yet: a success that
        // says so (the cursor reached the high watermark), not an error.
        const reached = last.cursor >= o.until
        return print(
          json,
          {
            cursor: last.cursor,
            high_watermark: last.highWatermark,
            until: o.until,
            until_reached: reached,
            flushes: rounds.map(toWireFlush),
          },
          () => [
            reached
              ? `cursor ${last.cursor} (high watermark ${last.highWatermark})`
              : `cursor ${last.cursor} (high watermark ${last.highWatermark}): every captured source is processed; position ${o.until} is not captured yet`,
          ],
        )
      },
      () => ({ extraction: extractionOptions(o) }),
    ),
  )

  program
    .command('flush-records')
    .description('decision records of the scope flushes (one per cursor advance)')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--record <id>', 'one record by id')
    .option('--after <position>', 'records whose window ends after this position', parseInteger)
    .option('--limit <n>', '1–100 (default 20)', parseInteger)
    .action(async (o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.flushRecords({
          scopeId: o.scope,
          recordId: o.record,
          after: o.after,
          limit: o.limit,
        })
        return print(json, toWireFlushRecords(r), () => [
          ...r.records.map(
            (x) =>
              `${x.recordId} (${x.fromPosition}..${x.toPosition}] ${x.mode}${x.model === null ? '' : ` ${x.model}`} ${x.createdAt}${x.redaction === undefined ? '' : `  (redacted ${x.redaction.redactedAt}: ${x.redaction.reason})`}`,
          ),
          ...(r.nextAfter === null ? [] : [`next page: --after ${r.nextAfter}`]),
        ])
      }),
    )
}
