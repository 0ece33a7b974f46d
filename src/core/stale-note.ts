/**
 * How a possibly stale memory is described (docs/agents.md "Freshness"): the commits that changed
 * its anchored paths and the note the prepared context, search and the CLI show. Pure text, no
 * imports, so the CLI's formatter can use it without loading the freshness rules.
 */
/** A commit captured after a memory's newest version that touched its anchored paths. */
export interface StaleCommit {
  readonly commit: string
  readonly paths: readonly string[]
  /** When the server captured it. */
  readonly capturedAt: string
}

/** Why a memory is possibly stale: the commits (newest first) that changed its anchored paths. */
export interface StaleMark {
  readonly commits: readonly StaleCommit[]
}

/** A commit as short as Git shows it (12 hex digits), whole when it is not a hex id. */
export const shortCommit = (commit: string): string =>
  /^[0-9a-f]{13,}$/i.test(commit) ? commit.slice(0, 12) : commit

/**
 * The note a stale item carries in prepared context: the paths and the commits that changed them
 * after the memory was written, worded as a lead to check, not a fact.
 */
export function staleNote(mark: StaleMark): string {
  const changes = mark.commits
    .map((c) => `${c.paths.join(', ')} changed in commit ${shortCommit(c.commit)}`)
    .join('; ')
  return `possibly stale: ${changes} after this memory was written; verify against the code before relying on it`
}
