import { readFileSync } from 'node:fs'

import { type Command, Option } from 'commander'

import type { MemoryState, SourceRef } from '../core/memory-model.js'
import type { MemoryOperations } from '../runtime/memory-operations.js'
import type * as Spi from '../storage/spi/memory-backend.js'
import type { RememberEntry, SearchMode } from '../storage/spi/memory-backend.js'
import { toWireListScopes } from '../wire/listing-wire.js'
import {
  toWireChanges,
  toWireGet,
  toWireHistory,
  toWireList,
  toWireMemory,
  toWireSearch,
} from '../wire/memory-wire.js'
import { fromWireLegacyCitation, fromWireRemember } from '../wire/request-mapper.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, collect, parseInteger, printResult } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'
import {
  formatChange,
  formatHit,
  formatMemory,
  formatMerge,
  formatRedaction,
  formatScope,
} from './memory-format.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'

const toSources = (ids: string[] | undefined): SourceRef[] =>
  (ids ?? []).map((sourceId) => ({ name: 'content', sourceId }))

/** `--entries FILE|-`: read and parsed by the CLI, so an unreadable or malformed file is a usage error. */
function readEntries(file: string): RememberEntry[] {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'))
  } catch (err) {
    const why =
      err instanceof SyntaxError
        ? 'is not JSON'
        : `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`
    throw new CliUsageError(`--entries ${file} ${why}`)
  }
  const entries = Array.isArray(raw) ? raw : (raw as { entries?: unknown } | null)?.entries
  if (!Array.isArray(entries))
    throw new CliUsageError(
      `--entries ${file} must hold a JSON array of entries (or {"entries": [...]})`,
    )
  // Unchecked JSON: the mapper only renames fields, the backend checks every entry.
  const unchecked = entries as Parameters<typeof fromWireRemember>[0]['entries']
  return [...fromWireRemember({ scope_id: '', entries: unchecked }).entries]
}

/**
 * Registers the memory commands (docs/memory-model.md) on the program. They are written once
 * against `MemoryOperations`; `run` decides between the data directory and `--server-url`.
 */
export function registerMemoryCommands(program: Command, io: CliIo, run: RunWithMemory): void {
  const print = (json: boolean, wire: unknown, human: () => string[]): number =>
    printResult(io, json, wire, human)

  program
    .command('remember')
    .description('add a memory (or a batch with --entries FILE|-); exact duplicates are unchanged')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--kind <kind>', 'fact | preference | decision | constraint | working_note | …', 'fact')
    .option('--source <id>', 'evidence source id (repeatable)', collect)
    .option('--observed-at <time>', 'RFC 3339 time the fact became true')
    .option('--reason <text>', 'audit reason')
    .option(
      '--entries <file>',
      'JSON array of {kind, text, sources?, observed_at?, reason?}; - for stdin',
    )
    .argument('[text...]', 'the memory text')
    .action(async (words: string[], o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const entries: RememberEntry[] =
          o.entries !== undefined
            ? readEntries(o.entries)
            : [
                {
                  kind: o.kind,
                  text: words.join(' '),
                  sources: toSources(o.source),
                  observedAt: o.observedAt ?? null,
                  reason: o.reason ?? null,
                },
              ]
        const r = await ops.remember({ scopeId: o.scope, entries })
        return print(
          json,
          { results: r.results.map((x) => ({ status: x.status, memory: toWireMemory(x.memory) })) },
          () => r.results.map((x) => `${x.status}: ${formatMemory(x.memory)}`),
        )
      }),
    )

  addEmbeddingOptions(
    program
      .command('search')
      .description(
        'search active memories (locally, vector and hybrid need the embedding settings the server runs with)',
      )
      .option('--scope <id>', SCOPE_OPTION_HELP)
      .option('--limit <n>', '1–50 (default 8)', parseInteger)
      .option('--mode <mode>', 'auto | fts | vector | hybrid', 'auto')
      .option('--kind <kind>', 'only this kind (repeatable)', collect),
  )
    .argument('<query...>', 'what to look for')
    .action(async (words: string[], o, cmd: Command) =>
      run(
        cmd,
        async (ops, json) => {
          const r = await ops.search({
            scopeId: o.scope,
            query: words.join(' '),
            limit: o.limit,
            mode: o.mode as SearchMode,
            kinds: o.kind,
          })
          return print(json, toWireSearch(r), () =>
            r.hits.length === 0
              ? [`no hits (mode ${r.mode})`]
              : r.hits.map((h, i) => formatHit(h, i + 1)),
          )
        },
        // Local only (a --server-url search uses the server's model): flags, else the server's
        // POWERCONTEXT_SERVER_EMBEDDING_* environment.
        () => {
          const embedding = embeddingSettings(o as EmbeddingFlags)
          return embedding === undefined ? {} : { embedding }
        },
      ),
    )

  program
    .command('get')
    .description(
      'read a memory (current version or --revision N), hash-verified; or the version an old Python-reference citation became (--legacy-citation JSON)',
    )
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--revision <n>', 'exact version', parseInteger)
    .option(
      '--legacy-citation <json>',
      'an old MemoryCitation {"memory_ref":{…},"entry_id":…,"entry_version_id":…} instead of a memory id',
    )
    .argument('[memory-id]')
    .action(async (memoryId: string | undefined, o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.get(getCommand(o.scope, memoryId, o.revision, o.legacyCitation))
        return print(json, toWireGet(r), () => [
          formatMemory(r.memory),
          `current revision: ${r.currentRevision}`,
        ])
      }),
    )

  program
    .command('history')
    .description('the versions and state transitions of a memory, one page (≤ 1 MiB) at a time')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option(
      '--after <revision>',
      'continue after this revision (next_after of the previous page)',
      parseInteger,
    )
    .argument('<memory-id>')
    .action(async (memoryId: string, o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.history({ scopeId: o.scope, memoryId, after: o.after })
        const into = r.versions.at(-1)?.mergedInto ?? null
        return print(json, toWireHistory(r), () => [
          `${r.memoryId} [${r.state}] at revision ${r.currentRevision}${into === null ? '' : `, merged into ${into}`}`,
          ...r.versions.map(
            (v) => `  v${v.memoryRef.revision} ${v.createdAt} ${v.kind}: ${v.text}`,
          ),
          ...r.transitions.map((c) => `  ${formatChange(c)}`),
          ...r.merges.map((m) => `  ${formatMerge(m)}`),
          ...(r.nextAfter === null ? [] : [`next page: --after ${r.nextAfter}`]),
        ])
      }),
    )

  program
    .command('list')
    .description('list memories, one keyset page at a time')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option(
      '--state <state>',
      'active | forgotten | merged | retired (repeatable; default active)',
      collect,
    )
    .option('--kind <kind>', 'only this kind (repeatable)', collect)
    .option('--limit <n>', '1–500 (default 100)', parseInteger)
    .option('--after <memory-id>', 'continue after this id (next_after of the previous page)')
    .action(async (o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.list({
          scopeId: o.scope,
          states: o.state as MemoryState[] | undefined,
          kinds: o.kind,
          limit: o.limit,
          after: o.after,
        })
        return print(json, toWireList(r), () => [
          ...r.memories.map(formatMemory),
          ...(r.nextAfter === null ? [] : [`next page: --after ${r.nextAfter}`]),
        ])
      }),
    )

  program
    .command('update')
    .description('write a new version of an active memory, based on exactly --revision')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .requiredOption('--revision <n>', 'the version your change is based on', parseInteger)
    .option('--text <text>', 'new text')
    .option('--kind <kind>', 'new kind')
    .option('--source <id>', 'additional evidence source id (repeatable)', collect)
    .option('--observed-at <time>', 'RFC 3339 time the fact became true')
    .addOption(new Option('--clear-observed-at', 'remove observed_at').conflicts('observedAt'))
    .option('--reason <text>', 'audit reason')
    .argument('<memory-id>')
    .action(async (memoryId: string, o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.update({
          scopeId: o.scope,
          memoryRef: { artifactId: memoryId, revision: o.revision },
          text: o.text,
          kind: o.kind,
          sources: toSources(o.source),
          observedAt: o.clearObservedAt === true ? null : o.observedAt,
          reason: o.reason,
        })
        return print(json, { status: r.status, memory: toWireMemory(r.memory) }, () => [
          `${r.status}: ${formatMemory(r.memory)}`,
        ])
      }),
    )

  program
    .command('forget')
    .description('take an active memory out of search (restorable)')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--revision <n>', 'expected current revision', parseInteger)
    .option('--reason <text>', 'audit reason')
    .argument('<memory-id>')
    .action(async (memoryId: string, o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.forget({
          scopeId: o.scope,
          memoryId,
          expectedRevision: o.revision,
          reason: o.reason,
        })
        return print(json, { status: r.status, memory: toWireMemory(r.memory) }, () => [
          `${r.status}: ${formatMemory(r.memory)}`,
        ])
      }),
    )

  program
    .command('changes')
    .description(
      'one page of the scope change log after --since (exclusive; 0 = from the start); --all follows every page',
    )
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--since <seq>', 'last seq already seen', parseInteger, 0)
    .option('--limit <n>', '1–10000 per page (default 1000)', parseInteger)
    .option('--all', 'follow next_since until the head (every page)')
    .action(async (o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await allChanges(ops, { scopeId: o.scope, since: o.since, limit: o.limit }, o.all)
        return print(json, toWireChanges(r), () => [
          ...[
            ...r.changes.map((c) => ({ seq: c.seq, line: formatChange(c) })),
            ...(r.redactions ?? []).map((x) => ({ seq: x.seq, line: formatRedaction(x) })),
          ]
            .sort((a, b) => a.seq - b.seq)
            .map((x) => x.line),
          `head seq: ${r.headSeq}`,
          ...(r.hasMore
            ? [`more after seq ${r.nextSince}: add --since ${r.nextSince} (or --all)`]
            : []),
        ])
      }),
    )

  program
    .command('scopes')
    .description('list scopes with memory counts per state and the time of the last change')
    .option('--after <scope>', 'continue after this scope id (keyset)')
    .option('--limit <n>', '1–500 (default 100)', parseInteger)
    .action(async (o, cmd: Command) =>
      run(cmd, async (ops, json) => {
        const r = await ops.listScopes({ after: o.after, limit: o.limit })
        return print(json, toWireListScopes(r), () => [
          ...r.scopes.map(formatScope),
          ...(r.nextAfter === null ? [] : [`more: --after ${r.nextAfter}`]),
        ])
      }),
    )
}

/** The `get` command from its arguments: a memory id, or an old citation given as wire JSON. */
function getCommand(
  scopeId: string,
  memoryId: string | undefined,
  revision: number | undefined,
  citation: string | undefined,
): Spi.GetCommand {
  if (citation === undefined) {
    if (memoryId === undefined)
      throw new CliUsageError('get needs a memory id or --legacy-citation')
    return { scopeId, memoryId, revision }
  }
  if (memoryId !== undefined || revision !== undefined) {
    throw new CliUsageError('give either a memory id (and --revision) or --legacy-citation')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(citation)
  } catch {
    throw new CliUsageError('--legacy-citation must be JSON')
  }
  // Shape is checked by the backend (checkLegacyCitation); only the field names change here.
  return { scopeId, legacyCitation: fromWireLegacyCitation(parsed) }
}

/** One page of changes, or with `all` every page from `since` to the head, joined (has_more false). */
async function allChanges(
  ops: MemoryOperations,
  cmd: Spi.ChangesCommand,
  all: boolean | undefined,
): Promise<Spi.ChangesResult> {
  let page = await ops.changes(cmd)
  if (all !== true) return page
  const changes = [...page.changes]
  const skipped = [...(page.skippedSources ?? [])]
  const redactions = [...(page.redactions ?? [])]
  while (page.hasMore) {
    page = await ops.changes({ ...cmd, since: page.nextSince })
    changes.push(...page.changes)
    skipped.push(...(page.skippedSources ?? []))
    redactions.push(...(page.redactions ?? []))
  }
  return {
    ...page,
    changes,
    ...(skipped.length > 0 ? { skippedSources: skipped } : {}),
    ...(redactions.length > 0 ? { redactions } : {}),
  }
}
