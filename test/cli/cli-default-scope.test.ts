/**
 * Without `--scope`, every scoped command acts on the working directory's project scope, picked
 * as the agent hooks pick it (`git:<host>/<path>` from the origin here; `POWERCONTEXT_SCOPE_ID`
 * first), so the CLI and the hooks of a checkout read and write one memory.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'

import { resolveScope } from '../../integrations/shared/scope.mjs'
import { runCli } from '../support/cli-run.js'
import { git, tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-scope-')
const dataDir = temp.make()
const repo = temp.make()
git(repo, 'init', '-q')
git(repo, 'remote', 'add', 'origin', 'https://github.com/Acme/Widgets.git')
const home = process.cwd()
afterEach(() => {
  process.chdir(home)
  vi.unstubAllEnvs()
})
afterAll(() => temp.removeAll())
const cli = (...args: string[]) => runCli('--data-dir', dataDir, '--json', ...args)

describe('the default scope', () => {
  it("is the working directory's project scope, as the hooks resolve it", async () => {
    vi.stubEnv('POWERCONTEXT_SCOPE_ID', '')
    process.chdir(repo)
    expect(resolveScope({ cwd: repo, env: {} }).scope_id).toBe('git:github.com/Acme/Widgets')
    const r = await cli('remember', '--kind', 'decision', 'Widgets ship weekly.')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out).results[0].memory.scope_id).toBe('git:github.com/Acme/Widgets')
    const listed = await cli('list')
    expect(JSON.parse(listed.out).memories.map((m: { text: string }) => m.text)).toEqual([
      'Widgets ship weekly.',
    ])
    const captured = await cli('capture', 'a note')
    expect(captured.code).toBe(0)
    const context = await cli('context')
    expect(JSON.parse(context.out).content).toContain('Widgets ship weekly.')
    // An explicit --scope wins; the override variable comes before Git, as in the hooks.
    expect(JSON.parse((await cli('list', '--scope', 'other')).out).memories).toEqual([])
    vi.stubEnv('POWERCONTEXT_SCOPE_ID', 'team:widgets')
    const over = await cli('remember', 'Team note.')
    expect(JSON.parse(over.out).results[0].memory.scope_id).toBe('team:widgets')
  })
})
