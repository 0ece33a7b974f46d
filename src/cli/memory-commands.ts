import { readFileSync } from 'node:fs'

import { type Command, Option } from 'commander'

import type { components } from '../contract/powercontext-types.js'
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
  formatStale,
} from './memory-format.js'
import type { CallOperation } from './operation-call.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'
import { opt, wireSources } from './wire-request.js'

type Wire = components['schemas']

/** `--entries FILE|-`: read and parsed by the CLI, so an unreadable or malformed file is a usage error. */
function readEntries(file: string): Wire['RememberEntry'][] {
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
  // Unchecked JSON: the contract's request schema checks every entry.
  return entries as Wire['RememberEntry'][]
}

/**
 * Registers the memory commands (docs/memory-model.md) on the program. They are written once
 * against one wire call (`CallOperation`); `run` decides between the data directory and `--server-url`.
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
      run(cmd, async (call, json) => {
        const entries: Wire['RememberEntry'][] =
          o.entries !== undefined
            ? readEntries(o.entries)
            : [
                {
                  kind: o.kind,
                  text: words.join(' '),
                  ...wireSources(o.source),
                  ...opt('observed_at', o.observedAt),
                  ...opt('reason', o.reason),
                },
              ]
        const r = await call('remember', { scope_id: o.scope, entries })
        return print(json, r, () => r.results.map((x) => `${x.status}: ${formatMemory(x.memory)}`))
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
        async (call, json) => {
          const r = await call('search', {
            scope_id: o.scope,
            query: words.join(' '),
            ...opt('limit', o.limit),
            mode: o.mode as Wire['SearchMode'],
            ...opt('kinds', o.kind),
          })
          return print(json, r, () =>
            r.hits.length === 0
              ? [`no hits (mode ${r.mode})`]
              : r.hits.flatMap((h, i) => formatHit(h, i + 1)),
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
      run(cmd, async (call, json) => {
        const r = await call('get', getRequest(o.scope, memoryId, o.revision, o.legacyCitation))
        return print(json, r, () => [
          formatMemory(r.memory),
          ...formatStale(r.stale),
          `current revision: ${r.current_revision}`,
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
      run(cmd, async (call, json) => {
        const r = await call('history', {
          scope_id: o.scope,
          memory_id: memoryId,
          ...opt('after', o.after),
        })
        const into = r.versions.at(-1)?.merged_into ?? null
        return print(json, r, () => [
          `${r.memory_id} [${r.state}] at revision ${r.current_revision}${into === null ? '' : `, merged into ${into}`}`,
          ...r.versions.map(
            (v) => `  v${v.memory_ref.revision} ${v.created_at} ${v.kind}: ${v.text}`,
          ),
          ...r.transitions.map((c) => `  ${formatChange(c)}`),
          ...r.merges.map((m) => `  ${formatMerge(m)}`),
          ...(r.next_after === null ? [] : [`next page: --after ${r.next_after}`]),
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
      run(cmd, async (call, json) => {
        const r = await call('list', {
          scope_id: o.scope,
          ...opt('states', o.state as Wire['MemoryState'][] | undefined),
          ...opt('kinds', o.kind),
          ...opt('limit', o.limit),
          ...opt('after', o.after),
        })
        return print(json, r, () => [
          ...r.memories.map(formatMemory),
          ...(r.next_after === null ? [] : [`next page: --after ${r.next_after}`]),
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
      run(cmd, async (call, json) => {
        const r = await call('update', {
          scope_id: o.scope,
          memory_ref: { artifact_id: memoryId, revision: o.revision },
          ...opt('text', o.text),
          ...opt('kind', o.kind),
          ...wireSources(o.source),
          ...opt('observed_at', o.clearObservedAt === true ? null : o.observedAt),
          ...opt('reason', o.reason),
        })
        return print(json, r, () => [`${r.status}: ${formatMemory(r.memory)}`])
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
      run(cmd, async (call, json) => {
        const r = await call('forget', {
          scope_id: o.scope,
          memory_id: memoryId,
          ...opt('expected_revision', o.revision),
          ...opt('reason', o.reason),
        })
        return print(json, r, () => [`${r.status}: ${formatMemory(r.memory)}`])
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
      run(cmd, async (call, json) => {
        const body = { scope_id: o.scope, since: o.since, ...opt('limit', o.limit) }
        const r = await allChanges(call, body, o.all)
        return print(json, r, () => [
          ...[
            ...r.changes.map((c) => ({ seq: c.seq, line: formatChange(c) })),
            ...r.redactions.map((x) => ({ seq: x.seq, line: formatRedaction(x) })),
          ]
            .sort((a, b) => a.seq - b.seq)
            .map((x) => x.line),
          `head seq: ${r.head_seq}`,
          ...(r.has_more
            ? [`more after seq ${r.next_since}: add --since ${r.next_since} (or --all)`]
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
      run(cmd, async (call, json) => {
        const r = await call('listScopes', { ...opt('after', o.after), ...opt('limit', o.limit) })
        return print(json, r, () => [
          ...r.scopes.map(formatScope),
          ...(r.next_after === null ? [] : [`more: --after ${r.next_after}`]),
        ])
      }),
    )
}

/** The `get` request from its arguments: a memory id, or an old citation given as wire JSON. */
function getRequest(
  scopeId: string,
  memoryId: string | undefined,
  revision: number | undefined,
  citation: string | undefined,
): Wire['GetRequest'] {
  if (citation === undefined) {
    if (memoryId === undefined)
      throw new CliUsageError('get needs a memory id or --legacy-citation')
    return revision === undefined
      ? { scope_id: scopeId, memory_id: memoryId }
      : { scope_id: scopeId, memory_ref: { artifact_id: memoryId, revision } }
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
  // Its shape is checked by the contract's request schema and the operation.
  return { scope_id: scopeId, legacy_citation: parsed as Wire['LegacyCitation'] }
}

/** One page of changes, or with `all` every page from `since` to the head, joined (has_more false). */
async function allChanges(
  call: CallOperation,
  body: Wire['ChangesRequest'],
  all: boolean | undefined,
): Promise<Wire['ChangesResponse']> {
  let page = await call('changes', body)
  if (all !== true) return page
  const changes = [...page.changes]
  const skipped = [...page.skipped_sources]
  const redactions = [...page.redactions]
  while (page.has_more) {
    page = await call('changes', { ...body, since: page.next_since })
    changes.push(...page.changes)
    skipped.push(...page.skipped_sources)
    redactions.push(...page.redactions)
  }
  return { ...page, changes, skipped_sources: skipped, redactions }
}
