import { useEffect, useState } from 'preact/hooks'

import type { ChangesResponse, MemoryChange, SkippedSource } from '../client/index.js'
import { useConsole } from './context.js'
import { listKeys, useAction } from './hooks.js'
import { href } from './routes.js'
import { ErrorBox, shortId, Time } from './ui.js'

const PAGE = 200

type Entry =
  | { readonly seq: number; readonly change: MemoryChange }
  | { readonly seq: number; readonly skipped: SkippedSource }

/** The scope's change feed as a timeline, newest last; rows of one request are grouped. */
export function ChangesView({ scope }: { scope: string }) {
  const { client } = useConsole()
  const [entries, setEntries] = useState<readonly Entry[]>([])
  const [head, setHead] = useState<number | undefined>()
  // The server pages the log explicitly: the next page starts at `next_since` while `has_more`.
  const [since, setSince] = useState(0)
  const [hasMore, setHasMore] = useState(false)
  const action = useAction()
  const more = async () => {
    const r: ChangesResponse | undefined = await action.run(() =>
      client.changes({ scope_id: scope, since, limit: PAGE }),
    )
    if (r === undefined) return
    const next: Entry[] = [
      ...r.changes.map((change) => ({ seq: change.seq, change })),
      ...r.skipped_sources.map((skipped) => ({ seq: skipped.seq, skipped })),
    ].sort((a, b) => a.seq - b.seq)
    setEntries([...entries, ...next])
    setHead(r.head_seq)
    setSince(r.next_since)
    setHasMore(r.has_more)
  }
  useEffect(() => {
    void more()
  }, [scope])
  const groups: Entry[][] = []
  for (const e of entries) {
    const last = groups.at(-1)
    const op = (x: Entry) => ('change' in x ? x.change.operation_id : `skip ${x.seq}`)
    if (last !== undefined && op(last[0]!) === op(e)) last.push(e)
    else groups.push([e])
  }
  return (
    <section aria-labelledby="changes-heading">
      <h1 id="changes-heading">Changes</h1>
      <p class="muted">
        {entries.length} of {head ?? '…'} change{head === 1 ? '' : 's'} · rows of one request share
        one group
      </p>
      <ErrorBox error={action.error} />
      <ol class="timeline" onKeyDown={listKeys} aria-label="Change feed, oldest first">
        {groups.map((g) => (
          <li key={g[0]!.seq} class="event">
            {'change' in g[0]! ? (
              <p class="muted">
                <Time at={g[0].change.at} /> · operation <code>{g[0].change.operation_id}</code>
              </p>
            ) : (
              <p class="muted">
                <Time at={g[0]!.skipped.at} /> · flush skipped a source
              </p>
            )}
            <ul class="plain">
              {g.map((e) => (
                <li key={e.seq} class="change">
                  {'change' in e ? (
                    <ChangeRow scope={scope} c={e.change} />
                  ) : (
                    <SkipRow s={e.skipped} />
                  )}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {hasMore && (
        <button type="button" disabled={action.busy} onClick={() => void more()}>
          Load more changes
        </button>
      )}
    </section>
  )
}

function ChangeRow({ scope, c }: { scope: string; c: MemoryChange }) {
  return (
    <>
      <span class="seq">#{c.seq}</span> <span class={`badge op-${c.op}`}>{c.op}</span>{' '}
      <a data-nav href={href({ view: 'memory', scope, memoryId: c.memory_id })}>
        <code title={c.memory_id}>{shortId(c.memory_id)}</code>
      </a>{' '}
      <span>
        {c.from_revision ?? '∅'}/{c.from_state ?? '∅'} → {c.to_revision}/{c.to_state}
      </span>
      {c.reason !== null && <span class="muted"> “{c.reason}”</span>}
    </>
  )
}

function SkipRow({ s }: { s: SkippedSource }) {
  return (
    <>
      <span class="seq">#{s.seq}</span> <span class="badge source-skipped">skipped</span> source{' '}
      <code>{s.source.source_id}</code> at position {s.position} after {s.attempts} attempt
      {s.attempts === 1 ? '' : 's'}: <code>{s.error.code}</code> {s.error.message}
    </>
  )
}
