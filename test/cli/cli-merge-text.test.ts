/**
 * The text output of merges (docs/cli.md): a merged memory says what it was merged into, a merge
 * result's history lists its inputs, and `merge` without `--kind` takes the inputs' common kind
 * (a usage error when they differ).
 */
import { afterAll, describe, expect, it } from 'vitest'

import { runCli } from '../support/cli-run.js'
import { tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-merge-text-')
const dataDir = temp.make()
afterAll(() => temp.removeAll())
const S = 'cli:merge-text'
const cli = (...args: string[]) => runCli('--data-dir', dataDir, ...args)

async function remember(kind: string, text: string): Promise<string> {
  const r = await cli('--json', 'remember', '--scope', S, '--kind', kind, text)
  return (JSON.parse(r.out) as { results: { memory: { memory_ref: { artifact_id: string } } }[] })
    .results[0]!.memory.memory_ref.artifact_id
}

describe('merge relations in text output', () => {
  it('shows merged into on inputs, the inputs of a result, and the common kind', async () => {
    const a = await remember('decision', 'Deploys happen on Tuesdays')
    const b = await remember('decision', 'Deploys need a change ticket')
    const merged = await cli(
      'merge',
      '--scope',
      S,
      '--text',
      'Deploys: Tuesdays, with a ticket',
      `${a}@1`,
      `${b}@1`,
    )
    expect(merged.code).toBe(0)
    const lines = merged.out.trimEnd().split('\n')
    const result =
      /^merged \((mrg_\w+)\): (mem_\w+)@1 \[active\] decision: Deploys: Tuesdays, with a ticket$/.exec(
        lines[0] ?? '',
      )
    expect(result, merged.out).not.toBeNull()
    const [, mergeId, resultId] = result as RegExpExecArray
    expect(lines.slice(1)).toEqual([
      `  input ${a}@1 [merged] decision: Deploys happen on Tuesdays  merged into ${resultId}`,
      `  input ${b}@1 [merged] decision: Deploys need a change ticket  merged into ${resultId}`,
    ])
    const input = await cli('get', '--scope', S, a!)
    expect(input.out.split('\n')[0]).toBe(
      `${a}@1 [merged] decision: Deploys happen on Tuesdays  merged into ${resultId}`,
    )
    const inputHistory = await cli('history', '--scope', S, a!)
    expect(inputHistory.out.split('\n')[0]).toBe(
      `${a} [merged] at revision 1, merged into ${resultId}`,
    )
    const history = await cli('history', '--scope', S, resultId!)
    expect(history.out).toContain(`  merge ${mergeId} effective: ${a}@1 + ${b}@1 → ${resultId}\n`)
    // Undone by a restore: the relation stays in the history, marked undone.
    expect((await cli('restore', '--scope', S, a!)).code).toBe(0)
    const after = await cli('history', '--scope', S, a!)
    expect(after.out).toMatch(
      new RegExp(`  merge ${mergeId} undone at \\S+: ${a}@1 \\+ ${b}@1 → ${resultId}\\n`),
    )
    expect(after.out.split('\n')[0]).toBe(`${a} [active] at revision 1`)
  })

  it('without --kind, inputs of different kinds are a usage error naming them', async () => {
    const a = await remember('fact', 'Kind test one')
    const b = await remember('constraint', 'Kind test two')
    const r = await cli('merge', '--scope', S, '--text', 'both', `${a}@1`, `${b}@1`)
    expect(r).toMatchObject({ code: 2, out: '' })
    expect(r.err).toBe(
      "error: the inputs have different kinds (fact, constraint): give the merged memory's --kind\n",
    )
    const given = await cli(
      '--json',
      'merge',
      '--scope',
      S,
      '--text',
      'both',
      '--kind',
      'fact',
      `${a}@1`,
      `${b}@1`,
    )
    expect(JSON.parse(given.out).memory.kind).toBe('fact')
  })
})
