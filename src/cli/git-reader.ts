/**
 * Reads commits through the `git` program (execFile, never a shell): the repository's root and
 * common git dir, the commits after a base, and one commit's message, author date and changed
 * paths (first parent for merges). Used by `powercontext capture git`.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

import { PowerContextError } from '../core/errors.js'
import type { GitChangedPath, GitCommit } from '../core/git-change.js'

const run = promisify(execFile)
const MAX_OUTPUT = 64 * 1024 * 1024

/** Runs git in `dir`; resolves stdout. Git's own message becomes an `invalid_request`. */
export async function git(dir: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run('git', ['-C', dir, ...args], {
      maxBuffer: MAX_OUTPUT,
      encoding: 'utf8',
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    })
    return stdout
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string }
    if (e.code === 'ENOENT')
      throw new PowerContextError('invalid_request', 'git is not installed (not on PATH)', {
        errors: [{ field: 'repo', message: 'git not found' }],
      })
    const first = (e.stderr ?? e.message).trim().split('\n')[0] ?? 'git failed'
    throw new PowerContextError('invalid_request', `git ${args[0] ?? ''}: ${first}`, {
      errors: [{ field: 'repo', message: first }],
    })
  }
}

/** The work tree root and the common git dir (shared by every worktree) of a repository. */
export interface GitRepository {
  readonly root: string
  readonly commonDir: string
}

/** Finds the repository that holds `dir`. @throws PowerContextError `invalid_request` */
export async function openRepository(dir: string): Promise<GitRepository> {
  const out = await git(dir, [
    'rev-parse',
    '--path-format=absolute',
    '--show-toplevel',
    '--git-common-dir',
  ])
  const [root, commonDir] = out.split('\n')
  if (root === undefined || commonDir === undefined || root === '' || commonDir === '')
    throw new PowerContextError('invalid_request', `${dir} is not inside a git work tree`, {
      errors: [{ field: 'repo', message: 'not a git work tree' }],
    })
  return { root, commonDir }
}

/** The commit HEAD points at, or null in a repository without commits. */
export async function headCommit(dir: string): Promise<string | null> {
  try {
    return (await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).trim() || null
  } catch {
    return null
  }
}

/** Resolves a commit-ish to a full commit id. @throws PowerContextError `invalid_request` */
export async function resolveCommit(dir: string, rev: string): Promise<string> {
  if (rev.startsWith('-'))
    throw new PowerContextError('invalid_request', `not a commit: ${rev}`, {
      errors: [{ field: 'since', message: 'not a commit' }],
    })
  return (await git(dir, ['rev-parse', '--verify', '--end-of-options', `${rev}^{commit}`])).trim()
}

/** True when the commit exists in the repository (a rewritten history may have dropped it). */
export async function commitExists(dir: string, commit: string): Promise<boolean> {
  try {
    await resolveCommit(dir, commit)
    return true
  } catch {
    return false
  }
}

/**
 * Commits of HEAD after `base` (exclusive), parents before children; without a base the newest
 * `newest` commits of HEAD, oldest first.
 */
export async function commitsAfter(
  dir: string,
  base: string | null,
  newest: number,
): Promise<string[]> {
  const range =
    base === null ? [`--max-count=${newest}`, 'HEAD'] : ['--end-of-options', `${base}..HEAD`]
  const out = await git(dir, ['rev-list', '--reverse', '--topo-order', ...range])
  return out.split('\n').filter((l) => l !== '')
}

const splitZ = (out: string): string[] => out.split('\0').filter((_, i, a) => i < a.length - 1)

/** Paths with status (`--name-status`) joined with their line counts (`--numstat`). */
function changedPaths(nameStatus: string, numstat: string): GitChangedPath[] {
  const counts = new Map<string, { additions: number | null; deletions: number | null }>()
  const ns = splitZ(numstat)
  for (let i = 0; i < ns.length; i++) {
    const [add, del, path] = (ns[i] ?? '').split('\t')
    // A rename or copy: "add\tdel\t" then the old and the new path as their own fields.
    const target = path === '' ? ns[(i += 2)] : path
    if (target === undefined) continue
    const n = (v: string | undefined): number | null => (v === '-' || v === undefined ? null : +v)
    counts.set(target, { additions: n(add), deletions: n(del) })
  }
  const paths: GitChangedPath[] = []
  const fields = splitZ(nameStatus)
  for (let i = 0; i < fields.length; i++) {
    const status = (fields[i] ?? '').charAt(0)
    const renamed = status === 'R' || status === 'C'
    const oldPath = renamed ? fields[++i] : undefined
    const path = fields[++i]
    if (path === undefined) break
    paths.push({
      status,
      path,
      ...(oldPath === undefined ? {} : { oldPath }),
      ...(counts.get(path) ?? { additions: null, deletions: null }),
    })
  }
  return paths
}

/** One commit: message, author date, parents and changed paths (against its first parent). */
export async function readCommit(dir: string, commit: string): Promise<GitCommit> {
  const meta = await git(dir, [
    'show',
    '-s',
    '--format=%H%x00%P%x00%aI%x00%B',
    '--end-of-options',
    commit,
  ])
  const [id = commit, parentList = '', authorDate = '', ...message] = meta.split('\0')
  const parents = parentList.split(' ').filter((p) => p !== '')
  // A root commit against the empty tree, any other (merges too) against its first parent.
  const against =
    parents[0] === undefined
      ? ['--root', '--end-of-options', id]
      : ['--end-of-options', parents[0], id]
  const diff = (format: string): Promise<string> =>
    git(dir, ['diff-tree', '-r', '-z', '-M', '--no-commit-id', format, ...against])
  const [nameStatus, numstat] = await Promise.all([diff('--name-status'), diff('--numstat')])
  return {
    commit: id,
    parents,
    authorDate,
    message: message.join('\0'),
    paths: changedPaths(nameStatus, numstat),
  }
}
