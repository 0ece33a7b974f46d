import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { normalizeGitRemote, resolveScope } from '../../integrations/shared/scope.mjs'
import { checkScopeId } from '../../src/core/ids.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'pc-scope-')))
// A clean Git environment: no user or system config can change what a repository reports.
const env = { PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1' }
afterAll(() => rmSync(base, { recursive: true, force: true }))

let n = 0
function repo(origin?: string): string {
  const dir = join(base, `repo-${++n}`)
  mkdirSync(dir)
  execFileSync('git', ['init', '-q', dir], { env })
  if (origin !== undefined)
    execFileSync('git', ['remote', 'add', 'origin', origin], { cwd: dir, env })
  return dir
}
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')

describe('resolveScope on real git repositories', () => {
  it.each([
    ['https', 'https://github.com/Acme/Api.git', 'git:github.com/Acme/Api'],
    [
      'https with credentials and port',
      'https://u:secret@GitHub.com:8443/acme/api/',
      'git:github.com:8443/acme/api',
    ],
    ['ssh', 'ssh://git@github.com/acme/api.git', 'git:github.com/acme/api'],
    [
      'ssh with port',
      'ssh://git@Git.Example.org:2222/team/api.git',
      'git:git.example.org:2222/team/api',
    ],
    ['scp-style', 'git@github.com:acme/api.git', 'git:github.com/acme/api'],
    ['scp-style without user', 'example.org:group/sub/api', 'git:example.org/group/sub/api'],
  ])('%s origin → git:<host>/<path>', (_name, origin, expected) => {
    const dir = repo(origin)
    expect(resolveScope({ cwd: dir, env })).toEqual({ scope_id: expected, source: 'git' })
    // A subdirectory of the checkout is the same project.
    const sub = join(dir, 'src', 'deep')
    mkdirSync(sub, { recursive: true })
    expect(resolveScope({ cwd: sub, env }).scope_id).toBe(expected)
  })

  it('no origin → local:<sha256 of the project root>, from any subdirectory', () => {
    const dir = repo()
    const sub = join(dir, 'pkg')
    mkdirSync(sub)
    const expected = { scope_id: `local:${sha256(dir)}`, source: 'local' }
    expect(resolveScope({ cwd: dir, env })).toEqual(expected)
    expect(resolveScope({ cwd: sub, env })).toEqual(expected)
  })

  it('a local-path origin is not a network remote → local', () => {
    const dir = repo('/srv/git/api.git')
    expect(resolveScope({ cwd: dir, env })).toEqual({
      scope_id: `local:${sha256(dir)}`,
      source: 'local',
    })
  })

  it('not a repository → local:<sha256 of the real directory path>', () => {
    const dir = join(base, 'plain')
    mkdirSync(dir)
    expect(resolveScope({ cwd: dir, env })).toEqual({
      scope_id: `local:${sha256(dir)}`,
      source: 'local',
    })
  })

  it('a very long remote is replaced by its hash', () => {
    const path = `org/${'a'.repeat(300)}`
    const dir = repo(`https://example.org/${path}.git`)
    expect(resolveScope({ cwd: dir, env }).scope_id).toBe(
      `git:sha256:${sha256(`example.org/${path}`)}`,
    )
  })

  // The server accepts printable ASCII scope ids of 1–128 characters (src/core/ids.ts); the
  // reference keeps ids of up to 256 code points. Where the reference's id is valid here it is the
  // result; otherwise the reference's own hashed form for over-long ids is.
  it.each([
    // `git:example.org/` is 16 characters, so a path of 112 makes exactly 128.
    ['128 characters: kept as the reference keeps it', `org/${'a'.repeat(108)}`, false],
    [
      '129 characters: hashed (the reference keeps it, the server refuses it)',
      `org/${'a'.repeat(109)}`,
      true,
    ],
    ['256 characters: hashed', `org/${'a'.repeat(236)}`, true],
    ['over 256 characters: hashed, as the reference does', `org/${'b'.repeat(400)}`, true],
    ['a non-ASCII path: hashed', 'équipe/dépôt', true],
  ])('a long or non-ASCII origin path on a real repository — %s', (_name, path, hashed) => {
    const dir = repo(`https://example.org/${path}.git`)
    const expected = hashed
      ? `git:sha256:${sha256(`example.org/${path}`)}`
      : `git:example.org/${path}`
    const resolved = resolveScope({ cwd: dir, env })
    expect(resolved).toEqual({ scope_id: expected, source: 'git' })
    expect(checkScopeId(resolved.scope_id)).toBe(expected)
    const scp = repo(`git@example.org:${path}.git`)
    expect(resolveScope({ cwd: scp, env }).scope_id).toBe(expected)
  })

  it('an override the server would refuse (over 128 characters, a space) is hashed', () => {
    const dir = repo('git@github.com:acme/api.git')
    for (const value of ['q'.repeat(129), 'my project', 'projet:été']) {
      const resolved = resolveScope({ cwd: dir, env: { ...env, POWERCONTEXT_SCOPE_ID: value } })
      expect(resolved).toEqual({ scope_id: `sha256:${sha256(value)}`, source: 'env' })
      expect(checkScopeId(resolved.scope_id)).toBe(resolved.scope_id)
    }
    const max = 'q'.repeat(128)
    expect(resolveScope({ cwd: dir, env: { ...env, POWERCONTEXT_SCOPE_ID: max } }).scope_id).toBe(
      max,
    )
  })

  it('the Git-private binding wins over the remote; a malformed one is ignored', () => {
    const dir = repo('git@github.com:acme/api.git')
    mkdirSync(join(dir, '.git', 'powercontext'))
    const file = join(dir, '.git', 'powercontext', 'codex-workspace.json')
    const bind = (body: unknown) => writeFileSync(file, JSON.stringify(body))
    bind({ schema: 'powercontext.codex-workspace.v1', scope_id: 'workstream:release-7' })
    expect(resolveScope({ cwd: dir, env })).toEqual({
      scope_id: 'workstream:release-7',
      source: 'binding',
    })
    for (const bad of [
      { schema: 'powercontext.codex-workspace.v2', scope_id: 'x' },
      { schema: 'powercontext.codex-workspace.v1', scope_id: ' padded ' },
      { schema: 'powercontext.codex-workspace.v1', scope_id: '' },
      { schema: 'powercontext.codex-workspace.v1', scope_id: 7 },
      { schema: 'powercontext.codex-workspace.v1', scope_id: 'x'.repeat(257) },
      // Valid for the reference (≤ 256), refused by the server: ignored too.
      { schema: 'powercontext.codex-workspace.v1', scope_id: 'x'.repeat(129) },
      { schema: 'powercontext.codex-workspace.v1', scope_id: 'équipe' },
      { schema: 'powercontext.codex-workspace.v1', scope_id: 'two words' },
      ['powercontext.codex-workspace.v1'],
    ]) {
      bind(bad)
      expect(resolveScope({ cwd: dir, env }).source).toBe('git')
    }
    writeFileSync(file, '{not json')
    expect(resolveScope({ cwd: dir, env })).toEqual({
      scope_id: 'git:github.com/acme/api',
      source: 'git',
    })
  })

  it('an env override wins over everything; the host name comes before the generic one', () => {
    const dir = repo('git@github.com:acme/api.git')
    expect(
      resolveScope({ cwd: dir, env: { ...env, POWERCONTEXT_SCOPE_ID: '  project:x  ' } }),
    ).toEqual({ scope_id: 'project:x', source: 'env' })
    const both = {
      ...env,
      POWERCONTEXT_SCOPE_ID: 'generic',
      POWERCONTEXT_CLAUDE_SCOPE_ID: 'claude',
    }
    expect(resolveScope({ cwd: dir, env: both, host: 'claude-code' }).scope_id).toBe('claude')
    expect(resolveScope({ cwd: dir, env: both, host: 'codex' }).scope_id).toBe('generic')
    expect(resolveScope({ cwd: dir, env: both }).scope_id).toBe('generic')
    const long = 'p'.repeat(300)
    expect(resolveScope({ cwd: dir, env: { ...env, POWERCONTEXT_SCOPE_ID: long } }).scope_id).toBe(
      `sha256:${sha256(long)}`,
    )
    // A blank override counts as none.
    expect(resolveScope({ cwd: dir, env: { ...env, POWERCONTEXT_SCOPE_ID: '  ' } }).source).toBe(
      'git',
    )
  })

  it('a missing directory or a missing git never throws', () => {
    const gone = join(base, 'does-not-exist')
    expect(resolveScope({ cwd: gone, env }).source).toBe('local')
    const dir = repo('git@github.com:acme/api.git')
    expect(resolveScope({ cwd: dir, env: { HOME: base, PATH: '/nonexistent' } })).toEqual({
      scope_id: `local:${sha256(dir)}`,
      source: 'local',
    })
  })
})

describe('normalizeGitRemote (golden values produced by the Python reference)', () => {
  it.each([
    ['https://user:pw@GitHub.com/acme/repo', 'github.com/acme/repo'],
    ['https://github.com:443/acme/repo.git/', 'github.com:443/acme/repo'],
    ['git://example.org/x/y.git', 'example.org/x/y'],
    ['  https://h.example/a//b\\c.git  ', 'h.example/a/b/c'],
    ['http://[::1]:8080/r.git', '::1:8080/r'],
    ['https://h:0080/r', 'h:80/r'],
    ['HTTPS://h/r?x=1#f', 'h/r'],
    ['ssh://h/r.git.git', 'h/r.git'],
    ['git@host:path:with:colons.git', 'host/path:with:colons'],
    ['h:/abs/path.git', 'h/abs/path'],
    ['x@y@h:r', 'y@h/r'],
    ['https://h.example/a%20b/r.git', 'h.example/a%20b/r'],
    ['https://bücher.example/ä.git', 'bücher.example/ä'],
    ['https://h/r.GIT', 'h/r.GIT'],
  ])('%s → %s', (remote, expected) => {
    expect(normalizeGitRemote(remote)).toBe(expected)
  })

  it.each([
    'file:///srv/repo.git',
    '/srv/repo.git',
    '../repo',
    'https://h/',
    'git@h:',
    'ssh://git@h:22/',
    'user@host name:x',
    'https:///nohost/r',
    'https://h:abc/r',
    '',
  ])('%s → undefined', (remote) => {
    expect(normalizeGitRemote(remote)).toBeUndefined()
  })
})
