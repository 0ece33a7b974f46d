import { readFileSync } from 'node:fs'

import type { Command } from 'commander'

import { invalidRequest, PowerContextError } from '../core/errors.js'
import type { FlushResult } from '../runtime/source-flusher.js'
import { toWireFlush, toWireFlushRecords } from '../wire/flush-wire.js'
import { toWireSourceRef } from '../wire/memory-wire.js'
import type { CliIo } from './cli-io.js'
import { parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { addGenerationOptions, extractionOptions } from './generation-options.js'
import { formatChange } from './memory-format.js'

function parseMetadata(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw invalidRequest('metadata', 'must be a JSON object')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidRequest('metadata', 'must be a JSON object')
  return parsed as Record<string, unknown>
}

/** One human line per flush round. */
function formatFlush(r: FlushResult): string[] {
  if (r.status === 'idle') return [`idle: cursor ${r.cursor}, high watermark ${r.highWatermark}`]
  const lines = [
    `processed positions ${r.previousCursor + 1}..${r.cursor} (${r.processedSourceCount} sources, ${r.changes.length} changes, ${r.mode}) record ${r.recordId ?? '-'}`,
    ...r.changes.map((c) => `  ${formatChange(c)}`),
    ...r.sources
      .filter((s) => s.outcome !== 'candidates')
      .map(
        (s) =>
          `  source ${s.sourceId}@${s.position}: ${s.outcome}${s.note === null ? '' : ` (${s.note})`}`,
      ),
    ...r.skippedSources.map(
      (s) =>
        `  skipped ${s.source.sourceId}@${s.position} after ${s.attempts} attempts: ${s.error.code}: ${s.error.message}`,
    ),
  ]
  return lines
}

/**
 * Registers `capture`, `flush` and `flush-records` (DESIGN §6), written once against
 * `MemoryOperations`: local data directory or `--server-url`.
 */
export function registerSourceCommands(program: Command, io: CliIo, run: RunWithMemory): void {
  const print = (json: boolean, wire: unknown, human: () => string[]): number => {
    if (json) io.out(JSON.stringify(wire))
    else for (const line of human()) io.out(line)
    return 0
  }

  program
    .command('capture')
    .description('persist a source (evidence) in the scope journal; never creates memory')
    // Not a required option: `capture git` (a subcommand) resolves the project scope without it.
    .option('--scope <id>', 'scope id (required, except for `capture git`)')
    .option(
      '--source-id <id>',
      'source id (default: generated); same id + same payload = same position',
    )
    .option('--media-type <type>', 'media type (default text/plain; see docs/sources-and-flush.md)')
    .option('--metadata <json>', 'metadata, a JSON object')
    .option('--occurred-at <time>', 'RFC 3339 time the content was produced')
    .argument('[content...]', 'the content; read from stdin when absent or "-"')
    .action(async (words: string[], o, cmd: Command) => {
      if (o.scope === undefined) cmd.error("error: required option '--scope <id>' not specified")
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
    .requiredOption('--scope <id>', 'scope id')
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
          if (r.cursor >= o.until) break
          if (r.status === 'idle')
            throw new PowerContextError(
              'invalid_request',
              `position ${o.until} was not captured (high watermark ${r.highWatermark})`,
              { errors: [{ field: 'until', message: 'beyond the high watermark' }] },
            )
        }
        const last = rounds.at(-1) as FlushResult
        return print(
          json,
          {
            cursor: last.cursor,
            high_watermark: last.highWatermark,
            flushes: rounds.map(toWireFlush),
          },
          () => [`cursor ${last.cursor} (high watermark ${last.highWatermark})`],
        )
      },
      () => ({ extraction: extractionOptions(o) }),
    ),
  )

  program
    .command('flush-records')
    .description('decision records of the scope flushes (one per cursor advance)')
    .requiredOption('--scope <id>', 'scope id')
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
              `${x.recordId} (${x.fromPosition}..${x.toPosition}] ${x.mode}${x.model === null ? '' : ` ${x.model}`} ${x.createdAt}`,
          ),
          ...(r.nextAfter === null ? [] : [`next page: --after ${r.nextAfter}`]),
        ])
      }),
    )
}
