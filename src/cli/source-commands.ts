import { readFileSync } from 'node:fs'

import type { Command } from 'commander'

import type { components } from '../contract/powercontext-types.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, parseInteger, printResult } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { addGenerationOptions, extractionOptions } from './generation-options.js'
import { formatFlush, formatFlushRecord } from './memory-format.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'
import { opt } from './wire-request.js'

type FlushResponse = components['schemas']['FlushResponse']

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
 * one wire call (`CallOperation`): local data directory or `--server-url`.
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
      return run(cmd, async (call, json) => {
        const content =
          words.length === 0 || (words.length === 1 && words[0] === '-')
            ? readFileSync(0, 'utf8')
            : words.join(' ')
        const r = await call('captureContent', {
          scope_id: o.scope,
          content,
          ...opt('source_id', o.sourceId as string | undefined),
          ...opt('media_type', o.mediaType as string | undefined),
          ...opt('metadata', parseMetadata(o.metadata)),
          ...opt('occurred_at', o.occurredAt as string | undefined),
        })
        return print(json, { status: r.status, source: r.source, position: r.position }, () => [
          `accepted: ${r.source.source_id} at position ${r.position}`,
        ])
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
      async (call, json) => {
        const body = { scope_id: o.scope, ...opt('limit', o.limit as number | undefined) }
        if (o.until === undefined) {
          const r = await call('flush', body)
          return print(json, r, () => formatFlush(r))
        }
        const rounds: FlushResponse[] = []
        for (;;) {
          const r = await call('flush', { ...body, until: o.until })
          rounds.push(r)
          if (!json) for (const line of formatFlush(r)) io.out(line)
          if (r.cursor >= o.until || r.status === 'idle') break
        }
        const last = rounds.at(-1) as FlushResponse
        // Everything captured is processed but POSITION is not captured yet: a success that
        // says so (the cursor reached the high watermark), not an error.
        const reached = last.cursor >= o.until
        return print(
          json,
          {
            cursor: last.cursor,
            high_watermark: last.high_watermark,
            until: o.until,
            until_reached: reached,
            flushes: rounds,
          },
          () => [
            reached
              ? `cursor ${last.cursor} (high watermark ${last.high_watermark})`
              : `cursor ${last.cursor} (high watermark ${last.high_watermark}): every captured source is processed; position ${o.until} is not captured yet`,
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
      run(cmd, async (call, json) => {
        const r = await call('flushRecords', {
          scope_id: o.scope,
          ...opt('record_id', o.record as string | undefined),
          ...opt('after', o.after as number | undefined),
          ...opt('limit', o.limit as number | undefined),
        })
        return print(json, r, () => [
          ...r.records.map(formatFlushRecord),
          ...(r.next_after === null ? [] : [`next page: --after ${r.next_after}`]),
        ])
      }),
    )
}
