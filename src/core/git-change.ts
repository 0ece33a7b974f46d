/**
 * The Git change source (docs/sources-and-flush.md, "Git changes"): one
 * source per commit, media type {@link GIT_CHANGE_MEDIA_TYPE}, built only from the commit itself
 * (message, author date, changed paths, diffstat) so that capturing the same commit again gives
 * the same bytes and therefore the same journal position. Never the patch, with size caps, and
 * never a secret: a field that matches a secret rule is withheld (named in
 * `withheld`, its text dropped). Pure functions, no I/O.
 */
import { findSecret } from './secret-rules.js'
import { utf8Length } from './text-rules.js'

/** Media type of a Git change source. */
export const GIT_CHANGE_MEDIA_TYPE = 'application/vnd.powercontext.git-change+json'
/** The `schema` field of its content. */
export const GIT_CHANGE_SCHEMA = 'powercontext.git-change.v1'
/** Commit message cap, UTF-8 bytes (longer messages are cut and `truncated.message` is set). */
export const MAX_GIT_MESSAGE_BYTES = 8192
/** Changed paths kept per commit; the rest are counted in `truncated.paths`. */
export const MAX_GIT_PATHS = 300
/** Longest path kept, UTF-8 bytes (longer ones are counted as truncated). */
export const MAX_GIT_PATH_BYTES = 1024

/** One changed path as Git reports it (first parent for merges). */
export interface GitChangedPath {
  /** A, M, D, R, C, T (rename and copy scores dropped). */
  readonly status: string
  readonly path: string
  /** The source path of a rename or copy. */
  readonly oldPath?: string | undefined
  /** Lines added and deleted; null for binary files. */
  readonly additions: number | null
  readonly deletions: number | null
}

/** What a Git reader found for one commit. */
export interface GitCommit {
  readonly commit: string
  readonly parents: readonly string[]
  /** ISO 8601 author date with its offset, as Git prints it. */
  readonly authorDate: string
  readonly message: string
  readonly paths: readonly GitChangedPath[]
}

/** The source to capture for a commit. */
export interface GitChangeSource {
  readonly sourceId: string
  readonly content: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly occurredAt: string
  /** Fields withheld because they matched a secret rule (`message`, `path`). */
  readonly withheld: readonly { readonly field: string; readonly rule: string }[]
}

/** The deterministic source id of a commit. */
export const gitChangeSourceId = (commit: string): string => `git-change:${commit}`

function cutBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (utf8Length(text) <= maxBytes) return { text, cut: false }
  let out = ''
  let bytes = 0
  for (const ch of text) {
    const n = utf8Length(ch)
    if (bytes + n > maxBytes) break
    out += ch
    bytes += n
  }
  return { text: out, cut: true }
}

/**
 * The source of one commit: JSON with a fixed key order (`schema, commit, parents, author_date,
 * subject, message, changed_paths, diffstat, truncated, withheld`); `occurred_at` is the author
 * date. A message or path that matches a secret rule is withheld (null or left out) and named with the rule in `withheld`; the secret itself is
 * never kept.
 */
export function gitChangeSource(c: GitCommit): GitChangeSource {
  const withheld: { field: string; rule: string }[] = []
  const message = cutBytes(c.message.trim(), MAX_GIT_MESSAGE_BYTES)
  const messageSecret = findSecret(c.message)
  if (messageSecret !== undefined) withheld.push({ field: 'message', rule: messageSecret.rule })
  const kept: GitChangedPath[] = []
  let droppedPaths = 0
  for (const p of c.paths) {
    const secret = findSecret(`${p.oldPath ?? ''} ${p.path}`)
    if (secret !== undefined) {
      withheld.push({ field: 'path', rule: secret.rule })
      continue
    }
    if (kept.length >= MAX_GIT_PATHS || utf8Length(p.path) > MAX_GIT_PATH_BYTES) droppedPaths++
    else kept.push(p)
  }
  const sum = (k: 'additions' | 'deletions'): number => c.paths.reduce((n, p) => n + (p[k] ?? 0), 0)
  const subject = messageSecret === undefined ? (message.text.split('\n')[0] ?? '') : null
  const body = {
    schema: GIT_CHANGE_SCHEMA,
    commit: c.commit,
    parents: [...c.parents],
    author_date: c.authorDate,
    subject,
    message: messageSecret === undefined ? message.text : null,
    changed_paths: kept.map((p) => ({
      status: p.status,
      path: p.path,
      ...(p.oldPath === undefined ? {} : { old_path: p.oldPath }),
      additions: p.additions,
      deletions: p.deletions,
    })),
    diffstat: { files: c.paths.length, additions: sum('additions'), deletions: sum('deletions') },
    truncated: { message: messageSecret === undefined && message.cut, paths: droppedPaths },
    withheld: withheld.map((w) => ({ field: w.field, rule: w.rule })),
  }
  return Object.freeze({
    sourceId: gitChangeSourceId(c.commit),
    content: JSON.stringify(body),
    metadata: Object.freeze({ origin: 'git', event: 'commit', commit: c.commit }),
    occurredAt: c.authorDate,
    withheld: Object.freeze(withheld),
  })
}
