/**
 * `powercontext capture git` on real temporary Git repositories, into a data directory and
 * through `--server-url`: one git-change source per commit, a rerun captures nothing twice,
 * `--since` and `--limit`, secrets withheld, the state file in the git dir, the project scope.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { beforeEach, describe, expect, it, vi } from 'vitest'

import { resolveScope } from '../../integrations/shared/scope.mjs'
import { gitCaptureStatePath } from '../../src/cli/git-capture-state.js'
import { GIT_CHANGE_MEDIA_TYPE, GIT_CHANGE_SCHEMA } from '../../src/core/git-change.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { runCli as cli } from '../support/cli-run.js'
import { git } from '../support/temp-git.js'
import { useTempServer } from '../support/temp-server.js'

const env = useTempServer('pc-cli-git-')
const { tempDir } = env
beforeEach(() => {
  vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', '')
  vi.stubEnv('POWERCONTEXT_SCOPE_ID', '')
  return () => vi.unstubAllEnvs()
})

/** A repository with `n` commits, each adding `f<i>.txt`; returns its path. */
function repoWith(n: number): string {
  const repo = tempDir()
  git(repo, 'init', '-q', '-b', 'main')
  for (let i = 1; i <= n; i++) commit(repo, `f${i}.txt`, `line ${i}\n`, `commit ${i}`)
  return repo
}
function commit(repo: string, file: string, text: string, message: string): string {
  mkdirSync(join(repo, file, '..'), { recursive: true })
  writeFileSync(join(repo, file), text)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', message)
  return git(repo, 'rev-parse', 'HEAD')
}

interface Wire {
  scope_id: string
  captured: { commit: string; position: number; created: boolean; withheld: string[] }[]
  last_commit: string | null
  remaining: number
}
/** `capture --scope SCOPE git --repo REPO …` into this test's data directory (or `where`). */
let dataDir = ''
const gitArgs = (scope: string, repo: string, ...more: string[]): string[] => [
  ...(more[0] === '--server-url' ? more.splice(0, 2) : ['--data-dir', dataDir]),
  'capture',
  '--scope',
  scope,
  'git',
  '--repo',
  repo,
  ...more,
]
const capture = (scope: string, repo: string, ...more: string[]): Promise<Wire> =>
  json(...gitArgs(scope, repo, ...more))
const json = async (...args: string[]): Promise<Wire> => {
  const r = await cli('--json', ...args)
  expect(r.err).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.out) as Wire
}

async function sourcesOf(dataDir: string, scopeId: string, ids: string[]) {
  const rt = await MemoryRuntime.open({ dataDir })
  try {
    return (await rt.getSources({ scopeId, sourceIds: ids })).sources
  } finally {
    await rt.close()
  }
}

describe('capture git into a data directory', () => {
  it('captures each commit once, oldest first, and a rerun captures nothing', async () => {
    dataDir = tempDir()
    const repo = repoWith(3)
    const scope = 'git-test:rerun'
    const first = await capture(scope, repo)
    const log = git(repo, 'rev-list', '--reverse', 'HEAD').split('\n')
    expect(first.captured.map((c) => c.commit)).toEqual(log)
    expect(first.captured.map((c) => c.position)).toEqual([1, 2, 3])
    expect(first.captured.every((c) => c.created)).toBe(true)
    expect(first.last_commit).toBe(log[2])

    const again = await capture(scope, repo)
    expect(again.captured).toEqual([])
    expect(again.last_commit).toBe(log[2])

    const fourth = commit(repo, 'src/a.ts', 'export const a = 1\n', 'feat: add a\n\nWhy: because.')
    const next = await capture(scope, repo)
    expect(next.captured.map((c) => [c.commit, c.position])).toEqual([[fourth, 4]])

    const [source] = await sourcesOf(dataDir, scope, [`git-change:${fourth}`])
    expect(source?.mediaType).toBe(GIT_CHANGE_MEDIA_TYPE)
    expect(source?.metadata).toEqual({ origin: 'git', event: 'commit', commit: fourth })
    const body = JSON.parse(source?.content ?? '{}') as Record<string, unknown>
    expect(body).toMatchObject({
      schema: GIT_CHANGE_SCHEMA,
      commit: fourth,
      parents: [log[2]],
      subject: 'feat: add a',
      message: 'feat: add a\n\nWhy: because.',
      changed_paths: [{ status: 'A', path: 'src/a.ts', additions: 1, deletions: 0 }],
      diffstat: { files: 1, additions: 1, deletions: 0 },
      truncated: { message: false, paths: 0 },
      withheld: [],
    })
    expect(source?.content).not.toContain('export const a') // never the patch

    const state = JSON.parse(readFileSync(gitCaptureStatePath(join(repo, '.git')), 'utf8'))
    expect(state.entries).toEqual([
      expect.objectContaining({ scope_id: scope, last_commit: fourth }),
    ])
  })

  it('a lost state file only repeats captures (same positions), never duplicates them', async () => {
    dataDir = tempDir()
    const repo = repoWith(2)
    const first = await capture('git-test:lost', repo)
    rmSync(gitCaptureStatePath(join(repo, '.git')))
    const again = await capture('git-test:lost', repo)
    expect(again.captured.map((c) => [c.position, c.created])).toEqual([
      [1, false],
      [2, false],
    ])
    expect(again.captured.map((c) => c.commit)).toEqual(first.captured.map((c) => c.commit))
  })

  it('--since, --limit with what remains, renames, binaries, merges and an empty repository', async () => {
    dataDir = tempDir()
    const repo = repoWith(4)
    const log = git(repo, 'rev-list', '--reverse', 'HEAD').split('\n')
    const a = await capture('git-test:since', repo, '--since', log[0] as string, '--limit', '2')
    expect(a.captured.map((c) => c.commit)).toEqual(log.slice(1, 3))
    expect(a.remaining).toBe(1)
    const b = await capture('git-test:since', repo)
    expect(b.captured.map((c) => c.commit)).toEqual([log[3]])
    expect(b.remaining).toBe(0)

    git(repo, 'mv', 'f1.txt', 'moved.txt')
    writeFileSync(join(repo, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]))
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'move and binary')
    git(repo, 'checkout', '-q', '-b', 'side', 'HEAD~1')
    commit(repo, 'side.txt', 's\n', 'side work')
    git(repo, 'checkout', '-q', 'main')
    git(repo, 'merge', '-q', '--no-ff', '-m', 'merge side', 'side')
    const c = await capture('git-test:since', repo)
    expect(c.captured).toHaveLength(3)
    const ids = c.captured.map((x) => `git-change:${x.commit}`)
    const sources = await sourcesOf(dataDir, 'git-test:since', ids)
    const bodies = sources.map((s) => JSON.parse(s.content) as Record<string, never>)
    const move = bodies.find((x) => x['subject'] === 'move and binary')
    expect(move?.['changed_paths']).toEqual(
      expect.arrayContaining([
        { status: 'A', path: 'blob.bin', additions: null, deletions: null },
        { status: 'R', path: 'moved.txt', old_path: 'f1.txt', additions: 0, deletions: 0 },
      ]),
    )
    const merge = bodies.find((x) => x['subject'] === 'merge side')
    expect(merge?.['parents']).toHaveLength(2)
    expect(merge?.['changed_paths']).toEqual([
      { status: 'A', path: 'side.txt', additions: 1, deletions: 0 },
    ])

    const empty = tempDir()
    git(empty, 'init', '-q')
    const none = await cli('--data-dir', dataDir, 'capture', '--scope', 's', 'git', '--repo', empty)
    expect(none.code).toBe(0)
    expect(none.out).toContain('nothing new')
  })

  it('withholds a message that carries a secret and says so', async () => {
    dataDir = tempDir()
    const repo = repoWith(0)
    const token = `ghp_${'A1b2C3d4'.repeat(5)}`
    const sha = commit(repo, 'config.txt', 'x\n', `add deploy key ${token}`)
    const r = await cli(
      '--data-dir',
      dataDir,
      'capture',
      '--scope',
      'git-test:secret',
      'git',
      '--repo',
      repo,
    )
    expect(r.code).toBe(0)
    expect(r.out).toContain('withheld: message (github_token)')
    expect(r.out).not.toContain(token)
    const [source] = await sourcesOf(dataDir, 'git-test:secret', [`git-change:${sha}`])
    expect(source?.content).not.toContain(token)
    expect(JSON.parse(source?.content ?? '{}')).toMatchObject({
      subject: null,
      message: null,
      withheld: [{ field: 'message', rule: 'github_token' }],
      changed_paths: [{ path: 'config.txt' }],
    })
  })

  it('caps a long message and many paths', async () => {
    dataDir = tempDir()
    const repo = repoWith(0)
    for (let i = 0; i < 310; i++) writeFileSync(join(repo, `p${i}.txt`), `${i}\n`)
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', `big\n\n${'word '.repeat(3000)}`)
    const sha = git(repo, 'rev-parse', 'HEAD')
    await capture('git-test:caps', repo)
    const [source] = await sourcesOf(dataDir, 'git-test:caps', [`git-change:${sha}`])
    const body = JSON.parse(source?.content ?? '{}') as Record<string, never>
    expect(body['changed_paths']).toHaveLength(300)
    expect(body['truncated']).toEqual({ message: true, paths: 10 })
    expect(body['diffstat']).toEqual({ files: 310, additions: 310, deletions: 0 })
    expect(Buffer.byteLength(String(body['message']))).toBeLessThanOrEqual(8192)
  })

  it('uses the project scope of the hooks when --scope is absent, and reports git errors', async () => {
    dataDir = tempDir()
    const repo = repoWith(1)
    git(repo, 'remote', 'add', 'origin', 'git@github.com:acme/widgets.git')
    const expected = resolveScope({ cwd: repo, env: {} }).scope_id
    expect(expected).toBe('git:github.com/acme/widgets')
    const r = await json('--data-dir', dataDir, 'capture', 'git', '--repo', repo)
    expect(r.scope_id).toBe(expected)

    const notRepo = tempDir()
    const bad = await cli(...gitArgs('s', notRepo))
    expect(bad.code).toBe(1)
    expect(bad.err).toMatch(/^error: invalid_request: git rev-parse: fatal: not a git repository/)
    const since = await cli(...gitArgs('s', repo, '--since', 'nope'))
    expect(since.code).toBe(1)
    expect(since.err).toContain('invalid_request')
  })
})

describe('capture git through --server-url', () => {
  it('captures into the server and keeps its state apart from a data directory', async () => {
    const repo = repoWith(2)
    const scope = 'git-test:remote'
    const remote = await capture(scope, repo, '--server-url', env.server.url)
    expect(remote.captured.map((c) => c.position)).toEqual([1, 2])
    const again = await capture(scope, repo, '--server-url', env.server.url)
    expect(again.captured).toEqual([])
    // Another store has seen nothing: it gets every commit.
    dataDir = tempDir()
    const local = await capture(scope, repo)
    expect(local.captured).toHaveLength(2)
    const text = await cli(...gitArgs(scope, repo, '--server-url', env.server.url))
    expect(text.out).toBe(
      `nothing new in ${git(repo, 'rev-parse', '--show-toplevel')} for scope ${scope}\n`,
    )
  })

  it('a repository whose origin path is too long for a scope id still captures (hashed scope)', async () => {
    const repo = repoWith(1)
    const path = `team/${'very-long-project-name-'.repeat(8)}`
    git(repo, 'remote', 'add', 'origin', `https://example.org/${path}.git`)
    const r = await json('--server-url', env.server.url, 'capture', 'git', '--repo', repo)
    expect(r.scope_id).toBe(
      `git:sha256:${createHash('sha256').update(`example.org/${path}`).digest('hex')}`,
    )
    expect(r.captured).toHaveLength(1)
  })
})
