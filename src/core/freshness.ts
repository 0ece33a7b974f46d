/**
 * Freshness of memories anchored to code (docs/agents.md "Freshness"): a memory whose evidence
 * includes a Git change or a task outcome is anchored to the paths that source names and the
 * commit it was at; a commit captured later that touches one of those paths makes the memory
 * possibly stale. Pure rules, no I/O.
 */
import { createHash } from 'node:crypto'

import { mediaTypeEssence, TASK_OUTCOME_MEDIA_TYPE } from './extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE } from './git-change.js'

export { shortCommit, type StaleCommit, type StaleMark, staleNote } from './stale-note.js'

/** What a source names: its kind, the commit it was at (if known) and its paths. */
export interface SourceAnchor {
  readonly kind: 'git_change' | 'task_outcome'
  readonly commit: string | null
  readonly paths: readonly string[]
}

/** Longest path kept as an anchor, UTF-8 bytes; longer ones are not anchored. */
export const MAX_ANCHOR_PATH_BYTES = 1024
/** Paths anchored per source at most (the rest are not anchored). */
export const MAX_ANCHOR_PATHS = 300
/** Commits named per stale memory at most (the newest first). */
export const MAX_STALE_COMMITS = 3

/** The key a path is looked up by (paths may be longer than an index key may be). */
export function pathKey(path: string): string {
  return createHash('sha256').update(path, 'utf8').digest('hex')
}

/** A commit id as stored: letters, digits and `._/-`, at most 128 characters; anything else is not kept. */
const commitOf = (v: unknown): string | null =>
  typeof v === 'string' && /^[0-9A-Za-z._/-]{1,128}$/.test(v) ? v : null

function parse(content: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(content)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function keep(paths: readonly unknown[]): string[] {
  const out = new Set<string>()
  for (const p of paths) {
    if (typeof p !== 'string' || p.trim() === '') continue
    if (Buffer.byteLength(p, 'utf8') > MAX_ANCHOR_PATH_BYTES) continue
    out.add(p)
    if (out.size >= MAX_ANCHOR_PATHS) break
  }
  return [...out]
}

/**
 * The anchor of a source: a Git change names its commit and changed paths (a rename's old path
 * too); a task outcome its `changed_paths` and `git_head`. Any other source, or content that is
 * not the expected JSON, anchors nothing (undefined).
 */
export function sourceAnchor(source: {
  readonly mediaType: string
  readonly content: string
}): SourceAnchor | undefined {
  const essence = mediaTypeEssence(source.mediaType)
  if (essence !== GIT_CHANGE_MEDIA_TYPE && essence !== TASK_OUTCOME_MEDIA_TYPE) return undefined
  const body = parse(source.content)
  if (body === undefined) return undefined
  const listed = Array.isArray(body['changed_paths']) ? (body['changed_paths'] as unknown[]) : []
  if (essence === TASK_OUTCOME_MEDIA_TYPE) {
    const paths = keep(listed)
    return paths.length === 0
      ? undefined
      : { kind: 'task_outcome', commit: commitOf(body['git_head']), paths }
  }
  const named = listed.flatMap((p) => {
    const o = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>
    return [o['path'], o['old_path']]
  })
  const commit = commitOf(body['commit'])
  const paths = keep(named)
  return commit === null || paths.length === 0 ? undefined : { kind: 'git_change', commit, paths }
}
