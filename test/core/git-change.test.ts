/**
 * The Git change source (core/git-change.ts): the exact bytes of a commit's source, the caps on
 * message and paths at their boundaries, and secrets withheld by field and rule, never kept.
 */
import { describe, expect, it } from 'vitest'

import {
  GIT_CHANGE_SCHEMA,
  type GitChangedPath,
  gitChangeSource,
  gitChangeSourceId,
  type GitCommit,
  MAX_GIT_MESSAGE_BYTES,
  MAX_GIT_PATH_BYTES,
  MAX_GIT_PATHS,
} from '../../src/core/git-change.js'

// Built at run time so that no scanner mistakes this file for a leak.
const TOKEN = 'ghp_' + 'a'.repeat(36)

const commit = (over: Partial<GitCommit> = {}): GitCommit => ({
  commit: 'c0ffee',
  parents: ['beef01'],
  authorDate: '2026-12-02T10:00:00+01:00',
  message: 'Fix the parser',
  paths: [],
  ...over,
})

const modified = (path: string, additions: number | null = 1, deletions: number | null = 0) =>
  ({ status: 'M', path, additions, deletions }) satisfies GitChangedPath

const body = (c: GitCommit) => JSON.parse(gitChangeSource(c).content) as Record<string, unknown>

describe('gitChangeSource', () => {
  it('writes the commit as JSON with a fixed key order, the author date and git metadata', () => {
    const source = gitChangeSource(
      commit({
        message: '  Rename the reader\n\nIt reads lines now.\n',
        paths: [
          { status: 'R', path: 'src/new.ts', oldPath: 'src/old.ts', additions: 3, deletions: 2 },
          { status: 'A', path: 'logo.png', additions: null, deletions: null },
        ],
      }),
    )
    expect(source.content).toBe(
      JSON.stringify({
        schema: 'powercontext.git-change.v1',
        commit: 'c0ffee',
        parents: ['beef01'],
        author_date: '2026-12-02T10:00:00+01:00',
        subject: 'Rename the reader',
        message: 'Rename the reader\n\nIt reads lines now.',
        changed_paths: [
          { status: 'R', path: 'src/new.ts', old_path: 'src/old.ts', additions: 3, deletions: 2 },
          { status: 'A', path: 'logo.png', additions: null, deletions: null },
        ],
        diffstat: { files: 2, additions: 3, deletions: 2 },
        truncated: { message: false, paths: 0 },
        withheld: [],
      }),
    )
    expect(GIT_CHANGE_SCHEMA).toBe('powercontext.git-change.v1')
    expect(source.sourceId).toBe('git-change:c0ffee')
    expect(gitChangeSourceId('abc')).toBe('git-change:abc')
    expect(source.occurredAt).toBe('2026-12-02T10:00:00+01:00')
    expect(source.metadata).toEqual({ origin: 'git', event: 'commit', commit: 'c0ffee' })
    expect(source.withheld).toEqual([])
    expect(Object.isFrozen(source)).toBe(true)
    expect(Object.isFrozen(source.metadata)).toBe(true)
    expect(Object.isFrozen(source.withheld)).toBe(true)
  })

  it('gives the same bytes for the same commit, and copies the parents', () => {
    const parents = ['p1', 'p2']
    const c = commit({ parents, paths: [modified('a.ts')] })
    const first = gitChangeSource(c)
    parents.push('p3')
    expect(JSON.parse(first.content).parents).toEqual(['p1', 'p2'])
    expect(gitChangeSource(commit({ parents: ['p1', 'p2'], paths: [modified('a.ts')] }))).toEqual(
      first,
    )
  })

  it('keeps a message of exactly the cap and cuts a longer one at a character boundary', () => {
    const exact = 'a'.repeat(MAX_GIT_MESSAGE_BYTES)
    expect(body(commit({ message: exact }))).toMatchObject({
      message: exact,
      truncated: { message: false, paths: 0 },
    })
    // 'é' is two UTF-8 bytes: after one 'a' only 4,095 of them fit in 8,192 bytes.
    const cut = body(commit({ message: 'a' + 'é'.repeat(MAX_GIT_MESSAGE_BYTES / 2) }))
    expect(cut.message).toBe('a' + 'é'.repeat(MAX_GIT_MESSAGE_BYTES / 2 - 1))
    expect(cut.truncated).toEqual({ message: true, paths: 0 })
    // A character that ends exactly on the cap is kept.
    const even = body(commit({ message: 'é'.repeat(MAX_GIT_MESSAGE_BYTES / 2 + 1) }))
    expect(even.message).toBe('é'.repeat(MAX_GIT_MESSAGE_BYTES / 2))
    expect(even.subject).toBe(even.message)
  })

  it('takes the subject from the first line of the trimmed message', () => {
    expect(body(commit({ message: '\n\n  Subject line  \nbody' })).subject).toBe('Subject line  ')
    expect(body(commit({ message: '' }))).toMatchObject({ subject: '', message: '' })
  })

  it('withholds a message that holds a secret, naming the rule, and keeps no part of it', () => {
    const source = gitChangeSource(
      commit({ message: `Add the token ${TOKEN}\n` + 'x'.repeat(MAX_GIT_MESSAGE_BYTES) }),
    )
    expect(source.content).not.toContain(TOKEN)
    expect(source.content).not.toContain('Add the token')
    expect(JSON.parse(source.content)).toMatchObject({
      subject: null,
      message: null,
      truncated: { message: false, paths: 0 },
      withheld: [{ field: 'message', rule: 'github_token' }],
    })
    expect(source.withheld).toEqual([{ field: 'message', rule: 'github_token' }])
  })

  it('checks the whole message for secrets, not only the part under the cap', () => {
    const late = 'a'.repeat(MAX_GIT_MESSAGE_BYTES) + ` ${TOKEN}`
    const b = body(commit({ message: late }))
    expect(b.message).toBeNull()
    expect(b.withheld).toEqual([{ field: 'message', rule: 'github_token' }])
  })

  it('withholds a path whose new or old name holds a secret, but counts it in the diffstat', () => {
    const source = gitChangeSource(
      commit({
        paths: [
          modified(`keys/${TOKEN}.txt`, 5, 1),
          { status: 'R', path: 'safe.txt', oldPath: `old/${TOKEN}`, additions: 2, deletions: 2 },
          modified('kept.ts', 7, 3),
        ],
      }),
    )
    expect(source.content).not.toContain(TOKEN)
    const b = JSON.parse(source.content) as Record<string, unknown>
    expect(b.changed_paths).toEqual([{ status: 'M', path: 'kept.ts', additions: 7, deletions: 3 }])
    expect(b.diffstat).toEqual({ files: 3, additions: 14, deletions: 6 })
    expect(b.truncated).toEqual({ message: false, paths: 0 })
    const withheld = [
      { field: 'path', rule: 'github_token' },
      { field: 'path', rule: 'github_token' },
    ]
    expect(b.withheld).toEqual(withheld)
    expect(source.withheld).toEqual(withheld)
    expect(b.subject).toBe('Fix the parser')
  })

  it('keeps the first 300 paths and counts the rest as truncated', () => {
    const paths = Array.from({ length: MAX_GIT_PATHS + 2 }, (_, i) => modified(`f${i}.ts`, i, 1))
    const b = body(commit({ paths }))
    const kept = b.changed_paths as { path: string }[]
    expect(kept).toHaveLength(MAX_GIT_PATHS)
    expect(kept[0]?.path).toBe('f0.ts')
    expect(kept.at(-1)?.path).toBe(`f${MAX_GIT_PATHS - 1}.ts`)
    expect(b.truncated).toEqual({ message: false, paths: 2 })
    const total = ((MAX_GIT_PATHS + 1) * (MAX_GIT_PATHS + 2)) / 2
    expect(b.diffstat).toEqual({ files: MAX_GIT_PATHS + 2, additions: total, deletions: 302 })
    const exactly = body(commit({ paths: paths.slice(0, MAX_GIT_PATHS) }))
    expect(exactly.changed_paths).toHaveLength(MAX_GIT_PATHS)
    expect(exactly.truncated).toEqual({ message: false, paths: 0 })
  })

  it('keeps a path of exactly the byte cap and counts a longer one as truncated', () => {
    const exact = 'é'.repeat(MAX_GIT_PATH_BYTES / 2)
    const long = exact + 'x'
    const b = body(commit({ paths: [modified(long), modified(exact)] }))
    expect(b.changed_paths).toEqual([{ status: 'M', path: exact, additions: 1, deletions: 0 }])
    expect(b.truncated).toEqual({ message: false, paths: 1 })
    expect(b.diffstat).toEqual({ files: 2, additions: 2, deletions: 0 })
  })
})
