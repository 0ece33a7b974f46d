import { resolve } from 'node:path'

import type { Command } from 'commander'

import { resolveDataDir } from '../runtime/data-dir.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { lastProcessedCommit, saveProcessedCommit } from './git-capture-state.js'
import {
  commitExists,
  commitsAfter,
  headCommit,
  openRepository,
  readCommit,
  resolveCommit,
} from './git-reader.js'
import type { CallOperation } from './operation-call.js'
import { projectScope } from './project-scope.js'
import { remoteSettings } from './remote-settings.js'

/** Commits captured in one run unless `--limit` says otherwise. */
export const DEFAULT_GIT_LIMIT = 50
/** Largest `--limit`. */
export const MAX_GIT_LIMIT = 1000

/** One commit of a run. */
export interface CapturedCommit {
  readonly commit: string
  readonly sourceId: string
  readonly position: number
  /** False when this exact source was captured before (same id, same bytes). */
  readonly created: boolean
  readonly subject: string | null
  readonly withheld: readonly string[]
}

/** What `capture git` did. */
export interface GitCaptureReport {
  readonly scopeId: string
  readonly repository: string
  /** The base the run started after: the state's last commit, `--since`, or null (newest N). */
  readonly base: string | null
  readonly captured: readonly CapturedCommit[]
  readonly lastCommit: string | null
  /** Commits after the base not captured in this run because of the limit. */
  readonly remaining: number
}

/** The store a run captures into, as the key of the state file (credentials never kept). */
function targetKey(cmd: Command): string {
  const remote = remoteSettings(cmd)
  if (remote !== undefined) {
    const u = new URL(remote.serverUrl)
    return `server:${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
  }
  const { dataDir, database } = cmd.optsWithGlobals<{ dataDir?: string; database?: string }>()
  if (database !== undefined) {
    const u = new URL(database)
    return `database:${u.protocol}//${u.host}${u.pathname}`
  }
  return `data-dir:${resolve(resolveDataDir(dataDir))}`
}

/**
 * Captures the commits of `repo` after the last processed one (or after `since`; on a first run
 * the newest `limit`), oldest first, one git-change source each, and records the last captured
 * commit after each one, so that a rerun captures nothing twice and a failure part way loses
 * nothing. The git-change rules (and the secret rules they apply, whose provider list takes tens
 * of milliseconds to load) are loaded here, so that other commands start without them.
 */
export async function captureGit(
  call: CallOperation,
  o: { repo: string; scopeId: string; target: string; since?: string; limit: number },
): Promise<GitCaptureReport> {
  const { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } = await import('../core/git-change.js')
  const repo = await openRepository(o.repo)
  const stored = await lastProcessedCommit(repo.commonDir, o.target, o.scopeId)
  let base: string | null = null
  if (o.since !== undefined) base = await resolveCommit(repo.root, o.since)
  else if (stored !== null && (await commitExists(repo.root, stored))) base = stored
  const head = await headCommit(repo.root)
  const all = head === null ? [] : await commitsAfter(repo.root, base, o.limit)
  const batch = all.slice(0, o.limit)
  const captured: CapturedCommit[] = []
  for (const commit of batch) {
    const source = gitChangeSource(await readCommit(repo.root, commit))
    const r = await call('captureContent', {
      scope_id: o.scopeId,
      source_id: source.sourceId,
      content: source.content,
      media_type: GIT_CHANGE_MEDIA_TYPE,
      metadata: source.metadata,
      occurred_at: source.occurredAt,
    })
    await saveProcessedCommit(repo.commonDir, o.target, o.scopeId, commit)
    captured.push({
      commit,
      sourceId: source.sourceId,
      position: r.position,
      created: r.created,
      subject: (JSON.parse(source.content) as { subject: string | null }).subject,
      withheld: source.withheld.map((w) => `${w.field} (${w.rule})`),
    })
  }
  return {
    scopeId: o.scopeId,
    repository: repo.root,
    base,
    captured,
    lastCommit: captured.at(-1)?.commit ?? stored,
    remaining: all.length - batch.length,
  }
}

function formatReport(r: GitCaptureReport): string[] {
  const created = r.captured.filter((c) => c.created).length
  const lines = r.captured.map(
    (c) =>
      `${c.created ? 'captured' : 'already captured'} ${c.commit.slice(0, 12)} at position ${c.position}${c.subject === null ? '' : `: ${c.subject}`}${c.withheld.length === 0 ? '' : ` (withheld: ${c.withheld.join(', ')})`}`,
  )
  lines.push(
    r.captured.length === 0
      ? `nothing new in ${r.repository} for scope ${r.scopeId}`
      : `${created} new, ${r.captured.length - created} already captured, scope ${r.scopeId}; last commit ${r.lastCommit?.slice(0, 12)}`,
  )
  if (r.remaining > 0) lines.push(`${r.remaining} more commits after it: run again`)
  return lines
}

const toWire = (r: GitCaptureReport): Record<string, unknown> => ({
  scope_id: r.scopeId,
  repository: r.repository,
  base: r.base,
  captured: r.captured.map((c) => ({
    commit: c.commit,
    source: { name: 'content', source_id: c.sourceId },
    position: c.position,
    created: c.created,
    withheld: c.withheld,
  })),
  last_commit: r.lastCommit,
  remaining: r.remaining,
})

/**
 * Registers `capture git` under `capture` (docs/cli.md): the scope is `--scope` of `capture`, else
 * the project scope the agent hooks resolve for the repository.
 */
export function registerGitCaptureCommand(program: Command, io: CliIo, run: RunWithMemory): void {
  const capture = program.commands.find((c) => c.name() === 'capture')
  if (capture === undefined) throw new Error('capture git needs the capture command')
  capture
    .command('git')
    .description(
      'capture each new commit (message, author date, changed paths, diffstat) as a git-change source',
    )
    .option('--repo <dir>', 'the repository (default: the current directory)')
    .option('--since <commit>', 'capture the commits after this one (default: after the last run)')
    .option(
      '--limit <n>',
      `commits per run, 1–${MAX_GIT_LIMIT} (default ${DEFAULT_GIT_LIMIT}; a first run takes the newest)`,
      parseInteger,
    )
    .action(async (o: { repo?: string; since?: string; limit?: number }, cmd: Command) =>
      run(cmd, async (call, json) => {
        const limit = o.limit ?? DEFAULT_GIT_LIMIT
        if (limit < 1 || limit > MAX_GIT_LIMIT)
          throw new CliUsageError(`--limit must be 1–${MAX_GIT_LIMIT}`)
        const repo = resolve(o.repo ?? process.cwd())
        const scope = cmd.optsWithGlobals<{ scope?: string }>().scope ?? projectScope(repo)
        const r = await captureGit(call, {
          repo,
          scopeId: scope,
          target: targetKey(cmd),
          ...(o.since === undefined ? {} : { since: o.since }),
          limit,
        })
        if (json) io.out(JSON.stringify(toWire(r)))
        else for (const line of formatReport(r)) io.out(line)
        return 0
      }),
    )
}
