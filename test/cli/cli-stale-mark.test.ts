/**
 * The CLI's text output marks a possibly stale memory the way the agent's prepared context does:
 * `get` and `search` print an indented line naming the changed paths and the commit, and no such
 * line for a memory whose anchored paths have not changed since.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { beforeEach, describe, expect, it, vi } from 'vitest'

import { runCli as cli } from '../support/cli-run.js'
import { git } from '../support/temp-git.js'
import { useTempServer } from '../support/temp-server.js'

const { tempDir } = useTempServer('pc-cli-stale-')
beforeEach(() => {
  vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', '')
  vi.stubEnv('POWERCONTEXT_SCOPE_ID', '')
  return () => vi.unstubAllEnvs()
})

function commit(repo: string, file: string, text: string): string {
  mkdirSync(join(repo, file, '..'), { recursive: true })
  writeFileSync(join(repo, file), text)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', `change ${file}`)
  return git(repo, 'rev-parse', 'HEAD')
}

async function ok(...args: string[]): Promise<string> {
  const r = await cli(...args)
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return r.out
}

describe('the stale mark in CLI text', () => {
  it('get and search show which commit changed the anchored path; a fresh memory shows none', async () => {
    const dataDir = tempDir()
    const repo = tempDir()
    const scope = 'cli-stale:payments'
    git(repo, 'init', '-q', '-b', 'main')
    const first = commit(repo, 'src/payments/retry.ts', 'export const RETRIES = 3\n')
    commit(repo, 'src/other.ts', 'export const other = 1\n')
    const base = ['--data-dir', dataDir]
    await ok(...base, 'capture', '--scope', scope, 'git', '--repo', repo)

    const remembered = JSON.parse(
      await ok(
        '--json',
        ...base,
        'remember',
        '--scope',
        scope,
        '--kind',
        'fact',
        '--source',
        `git-change:${first}`,
        'Payments retry 3 times (src/payments/retry.ts).',
      ),
    ) as { results: { memory: { memory_ref: { artifact_id: string } } }[] }
    const id = remembered.results[0]!.memory.memory_ref.artifact_id

    const fresh = await ok(...base, 'get', '--scope', scope, id)
    expect(fresh).toContain('Payments retry 3 times')
    expect(fresh).not.toContain('possibly stale')

    const later = commit(repo, 'src/payments/retry.ts', 'export const RETRIES = 5\n')
    await ok(...base, 'capture', '--scope', scope, 'git', '--repo', repo)

    const got = await ok(...base, 'get', '--scope', scope, id)
    const note = `    possibly stale: src/payments/retry.ts changed in commit ${later.slice(0, 12)} after this memory was written`
    expect(got).toContain(note)
    const hits = await ok(...base, 'search', '--scope', scope, 'payments', 'retry')
    expect(hits).toMatch(/^1\. mem_\S+ .*Payments retry 3 times/m)
    expect(hits).toContain(note)
  })
})
