import { type Command, Option } from 'commander'

import type { components } from '../contract/powercontext-types.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, parseInteger, printResult } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { formatMemory } from './memory-format.js'
import type { CallOperation } from './operation-call.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'
import { opt } from './wire-request.js'

type Wire = components['schemas']

/**
 * Parses `MEMORY_ID@REVISION` into an exact ref.
 * @throws CliUsageError when the argument is not of that form (exit 2)
 */
export function parseExactRef(value: string): Wire['ArtifactRef'] {
  const at = value.lastIndexOf('@')
  const revision = at > 0 ? Number(value.slice(at + 1)) : Number.NaN
  if (!/^\d+$/.test(value.slice(at + 1)) || !Number.isSafeInteger(revision) || revision < 1) {
    throw new CliUsageError(`${value}: expected MEMORY_ID@REVISION, e.g. mem_01J…@2`)
  }
  return { artifact_id: value.slice(0, at), revision }
}

/**
 * The kind of a merge without `--kind`: the inputs' common kind, read at the exact revisions
 * merged (so it cannot change before the merge applies).
 * @throws CliUsageError when the inputs have different kinds
 */
async function commonKind(
  call: CallOperation,
  scopeId: string,
  inputs: readonly Wire['ArtifactRef'][],
): Promise<string> {
  const kinds = new Set<string>()
  for (const ref of inputs) {
    const r = await call('get', { scope_id: scopeId, memory_ref: ref })
    kinds.add(r.memory.kind)
  }
  if (kinds.size > 1)
    throw new CliUsageError(
      `the inputs have different kinds (${[...kinds].join(', ')}): give the merged memory's --kind`,
    )
  return [...kinds][0] as string
}

const refs = (list: readonly Wire['PlanRef'][]): string =>
  list.length === 0 ? '–' : list.map((r) => `${r.memory_id}@${r.version}`).join(', ')

/** Registers `merge` and `restore` (with `--preview` and `--preview-token`). */
export function registerMergeCommands(program: Command, io: CliIo, run: RunWithMemory): void {
  const print = (json: boolean, wire: unknown, human: () => string[]): number =>
    printResult(io, json, wire, human)

  program
    .command('merge')
    .description('merge two or more active memories (ID@REVISION each) into a new memory')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .requiredOption('--text <text>', 'text of the merged memory')
    .option('--kind <kind>', "kind of the merged memory (default: the inputs' common kind)")
    .option('--reason <text>', 'audit reason')
    .argument('<inputs...>', 'memories to merge, each as MEMORY_ID@REVISION (current revision)')
    .action(async (inputs: string[], o, cmd: Command) =>
      run(cmd, async (call, json) => {
        const refs = inputs.map(parseExactRef)
        const r = await call('merge', {
          scope_id: o.scope,
          inputs: refs,
          kind: o.kind ?? (await commonKind(call, o.scope, refs)),
          text: o.text,
          ...opt('reason', o.reason),
        })
        return print(json, r, () => [
          `${r.status} (${r.merge_id}): ${formatMemory(r.memory)}`,
          ...r.inputs.map((m) => `  input ${formatMemory(m)}`),
        ])
      }),
    )

  program
    .command('restore')
    .description(
      'bring a forgotten or merged memory back (undoing merges above it); --to-revision N then writes a new version with version N content',
    )
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--to-revision <n>', 'old version whose content to restore', parseInteger)
    .addOption(
      new Option('--preview', 'only show the plan and its preview token; change nothing').conflicts(
        'previewToken',
      ),
    )
    .option('--preview-token <token>', 'apply only if nothing moved since that preview')
    .option('--reason <text>', 'audit reason')
    .argument('<memory-id>')
    .action(async (memoryId: string, o, cmd: Command) =>
      run(cmd, async (call, json) => {
        const target = {
          scope_id: o.scope,
          memory_id: memoryId,
          ...opt('to_revision', o.toRevision as number | undefined),
        }
        if (o.preview === true) {
          const p = await call('restorePreview', target)
          const nv = p.plan.new_version
          return print(json, p, () => [
            `restore:        ${refs(p.plan.restore)}`,
            `retire:         ${refs(p.plan.retire)}`,
            `leaving search: ${refs(p.plan.leaving_search)}`,
            `new version:    ${nv === null ? '–' : `${nv.memory_id}@${nv.version} (content of ${nv.from_revision})`}`,
            `preview token:  ${p.preview_token}`,
          ])
        }
        const r = await call('restore', {
          ...target,
          ...opt('preview_token', o.previewToken as string | undefined),
          ...opt('reason', o.reason as string | undefined),
        })
        return print(json, r, () => [
          `${r.status}: ${formatMemory(r.memory)}`,
          ...r.restored.map((m) => `  restored ${formatMemory(m)}`),
          ...r.retired.map((m) => `  retired  ${formatMemory(m)}`),
        ])
      }),
    )
}
