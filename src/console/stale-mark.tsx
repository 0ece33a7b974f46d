import type { StaleMark } from '../client/index.js'
import { useConsole } from './context.js'
import { useLoad } from './hooks.js'

const short = (commit: string): string =>
  /^[0-9a-f]{13,}$/i.test(commit) ? commit.slice(0, 12) : commit

/**
 * The possibly-stale flag of a memory (docs/agents.md "Freshness"): the commits captured after its
 * newest version that changed paths it is anchored to, as a lead to verify.
 */
export function StaleBadge({ mark }: { mark: StaleMark | undefined }) {
  if (mark === undefined) return null
  const title = mark.commits
    .map((c) => `${c.paths.join(', ')} changed in commit ${short(c.commit)}`)
    .join('; ')
  return (
    <span class="badge stale-badge" title={title} data-testid="stale">
      possibly stale
    </span>
  )
}

/** The flag of a memory's current version, read with `get` (nothing while loading or fresh). */
export function StaleNote({ scope, memoryId }: { scope: string; memoryId: string }) {
  const { client } = useConsole()
  const got = useLoad(() => client.get({ scope_id: scope, memory_id: memoryId }), [scope, memoryId])
  const mark = got.data?.stale
  if (mark === undefined) return null
  return (
    <p class="stale-note" role="note" data-testid="stale-note">
      <StaleBadge mark={mark} />{' '}
      {mark.commits.map((c, i) => (
        <span key={c.commit}>
          {i > 0 && '; '}
          <code>{c.paths.join(', ')}</code> changed in commit <code>{short(c.commit)}</code>
        </span>
      ))}{' '}
      after this version was written — check the code before relying on it.
    </p>
  )
}
