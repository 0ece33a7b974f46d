import { useState } from 'preact/hooks'

import type { GetSourcesResponse, HistoryResponse, Memory, MemoryChange } from '../client/index.js'
import { useConsole } from './context.js'
import { Diff } from './diff-view.js'
import { useLoad, useMorePages } from './hooks.js'
import { EditPanel, ForgetPanel, RestorePanel } from './memory-actions.js'
import { RedactedNote, RedactPanel } from './redact-panel.js'
import { MergeGraph } from './merge-graph.js'
import { StaleNote } from './stale-mark.js'
import { href } from './routes.js'
import { InjectionUsage } from './sessions-view.js'
import { Clipped, ErrorBox, MoreButton, Section, shortId, StateBadge, Time } from './ui.js'

/**
 * One memory: its current text and state, every version with a word diff to its predecessor, its
 * evidence, its state transitions, the merge graph around it, and the actions its state allows.
 */
export function MemoryView({ scope, memoryId }: { scope: string; memoryId: string }) {
  const { client } = useConsole()
  // The history comes a page (≤ 1 MiB) at a time, oldest version first; when the first page does
  // not hold the current version, it is read on its own.
  const history = useLoad(async () => {
    const first = await client.history({ scope_id: scope, memory_id: memoryId })
    const shown = first.versions.find((v) => v.memory_ref.revision === first.current_revision)
    const current = shown ?? (await client.get({ scope_id: scope, memory_id: memoryId })).memory
    return { first, current }
  }, [scope, memoryId])
  const more = useMorePages<HistoryResponse>(history.data)
  const [restoreTo, setRestoreTo] = useState<number | undefined>()
  const [redactOf, setRedactOf] = useState<number | undefined>()
  const loaded = history.data
  if (loaded === undefined)
    return (
      <section aria-labelledby="memory-heading">
        <h1 id="memory-heading">
          Memory <code>{memoryId}</code>
        </h1>
        {history.loading && <p aria-live="polite">Loading…</p>}
        <ErrorBox error={history.error} />
      </section>
    )
  const h = joinPages([loaded.first, ...more.pages])
  const current =
    h.versions.find((v) => v.memory_ref.revision === h.current_revision) ?? loaded.current
  const nextAfter = h.next_after
  return (
    <div class="columns">
      <div class="main-column">
        <section aria-labelledby="memory-heading" class="panel current">
          <h1 id="memory-heading">
            Memory <code>{h.memory_id}</code> <StateBadge state={h.state} />
          </h1>
          <p class="muted">
            {current.kind} · revision {h.current_revision} · <Time at={current.created_at} />
            {current.merged_into !== null && (
              <>
                {' '}
                · merged into{' '}
                <a href={href({ view: 'memory', scope, memoryId: current.merged_into })}>
                  <code>{shortId(current.merged_into)}</code>
                </a>
              </>
            )}
          </p>
          {current.redaction ? (
            <RedactedNote redaction={current.redaction} />
          ) : (
            <blockquote class="memory-text" data-testid="current-text">
              {current.text}
            </blockquote>
          )}
          <StaleNote scope={scope} memoryId={h.memory_id} />
          <StateHelp state={h.state} />
        </section>
        <InjectionUsage scope={scope} memoryId={h.memory_id} />
        <Versions
          history={h}
          onRestoreTo={(v) => setRestoreTo(v)}
          canRestoreTo={h.state !== 'retired'}
          onRedact={(v) => setRedactOf(v)}
        />
        {nextAfter !== null && (
          <MoreButton
            more={more}
            onClick={() =>
              more.fetchNext(() =>
                client.history({ scope_id: scope, memory_id: memoryId, after: nextAfter }),
              )
            }
          >
            Show the versions after revision {nextAfter}
          </MoreButton>
        )}
        <Evidence scope={scope} memory={current} />
        <Transitions transitions={h.transitions} />
        <MergeGraph scope={scope} root={h} />
      </div>
      <aside class="side-column">
        {redactOf !== undefined && (
          <RedactPanel
            key={redactOf}
            scope={scope}
            target={{ memoryRef: { artifact_id: h.memory_id, revision: redactOf } }}
            label={`revision ${redactOf}`}
            onCancel={() => setRedactOf(undefined)}
            onDone={() => {
              setRedactOf(undefined)
              history.reload()
            }}
          />
        )}
        {h.state === 'active' && !current.redaction && (
          <EditPanel
            key={h.current_revision}
            scope={scope}
            memory={current}
            onDone={history.reload}
          />
        )}
        {h.state === 'active' && (
          <ForgetPanel scope={scope} memory={current} onDone={history.reload} />
        )}
        {(h.state === 'forgotten' || h.state === 'merged' || restoreTo !== undefined) && (
          <RestorePanel
            key={`${h.current_revision} ${restoreTo ?? ''}`}
            scope={scope}
            memoryId={h.memory_id}
            toRevision={restoreTo}
            onCancel={restoreTo === undefined ? undefined : () => setRestoreTo(undefined)}
            onStale={history.reload}
            onDone={() => {
              setRestoreTo(undefined)
              history.reload()
            }}
          />
        )}
      </aside>
    </div>
  )
}

/** The pages of a history read so far, as one history (merges come with the first page). */
function joinPages(pages: readonly HistoryResponse[]): HistoryResponse {
  const first = pages[0]!
  return {
    ...first,
    versions: pages.flatMap((p) => p.versions),
    transitions: pages.flatMap((p) => p.transitions),
    next_after: pages.at(-1)!.next_after,
  }
}

function StateHelp({ state }: { state: string }) {
  const help: Record<string, string> = {
    active: 'Searchable and editable.',
    forgotten: 'Out of search, still readable; restore brings it back at the same version.',
    merged: 'Frozen inside a merge result; restoring it undoes every merge above it.',
    retired: 'A merge result whose merge was undone: readable, never searchable again.',
  }
  return <p class="muted">{help[state]}</p>
}

/** The versions loaded so far, newest first, each with a word diff to the version before it. */
function Versions(props: {
  history: HistoryResponse
  canRestoreTo: boolean
  onRestoreTo: (version: number) => void
  onRedact: (version: number) => void
}) {
  const versions = [...props.history.versions].reverse()
  return (
    <Section title="Versions">
      <ol class="versions" reversed>
        {versions.map((v, i) => {
          const previous = versions[i + 1]
          const isCurrent = v.memory_ref.revision === props.history.current_revision
          return (
            <li key={v.memory_ref.revision} data-testid={`version-${v.memory_ref.revision}`}>
              <p class="version-head">
                <strong>revision {v.memory_ref.revision}</strong> · {v.kind} ·{' '}
                <Time at={v.created_at} />
                {v.reason !== null && <span class="muted"> · “{v.reason}”</span>}
                {isCurrent && <span class="badge">current</span>}
                {v.redaction ? (
                  <span class="badge redacted-badge">redacted</span>
                ) : (
                  <button
                    type="button"
                    class="quiet small"
                    onClick={() => props.onRedact(v.memory_ref.revision)}
                  >
                    Redact…
                  </button>
                )}
                {!isCurrent && props.canRestoreTo && !v.redaction && (
                  <button
                    type="button"
                    class="quiet small"
                    onClick={() => props.onRestoreTo(v.memory_ref.revision)}
                  >
                    Restore this version’s content
                  </button>
                )}
              </p>
              {v.redaction ? (
                <RedactedNote redaction={v.redaction} />
              ) : previous === undefined || previous.redaction ? (
                <p class="diff">{v.text}</p>
              ) : (
                <Diff before={previous} after={v} />
              )}
            </li>
          )
        })}
      </ol>
    </Section>
  )
}

/** The current version's evidence: each source's content, metadata and flush status. */
function Evidence({ scope, memory }: { scope: string; memory: Memory }) {
  const { client } = useConsole()
  const ids = memory.sources.map((s) => s.source_id)
  const sources = useLoad(
    () =>
      ids.length === 0
        ? Promise.resolve({ sources: [], remaining_source_ids: [] })
        : client.getSources({ scope_id: scope, source_ids: ids }),
    [scope, ids.join('\u0000')],
  )
  // One answer carries at most 1 MiB of sources; the rest is fetched on request, page by page.
  const more = useMorePages<GetSourcesResponse>(sources.data)
  const pages = [...(sources.data === undefined ? [] : [sources.data]), ...more.pages]
  const remaining = pages.at(-1)?.remaining_source_ids ?? []
  return (
    <Section title="Evidence">
      {ids.length === 0 && <p class="muted">This version cites no source.</p>}
      <ErrorBox error={sources.error} />
      <ul class="plain evidence">
        {pages
          .flatMap((p) => p.sources)
          .map((s) => (
            <li key={s.source.source_id} class="source">
              <p>
                <code>{s.source.source_id}</code> · position {s.position} · {s.media_type} ·{' '}
                <span class={`badge source-${s.status}`}>{s.status}</span> · captured{' '}
                <Time at={s.captured_at} />
                {s.occurred_at !== null && (
                  <>
                    {' '}
                    · occurred <Time at={s.occurred_at} />
                  </>
                )}
              </p>
              <Clipped text={s.content} />
              {Object.keys(s.metadata).length > 0 && (
                <dl class="metadata" aria-label="Metadata">
                  {Object.entries(s.metadata).map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                    </div>
                  ))}
                </dl>
              )}
            </li>
          ))}
      </ul>
      {remaining.length > 0 && (
        <MoreButton
          more={more}
          onClick={() =>
            more.fetchNext(() => client.getSources({ scope_id: scope, source_ids: [...remaining] }))
          }
        >
          Show {remaining.length} more {remaining.length === 1 ? 'source' : 'sources'}
        </MoreButton>
      )}
    </Section>
  )
}

/** The change-log rows of the versions loaded so far, oldest first. */
function Transitions({ transitions }: { transitions: readonly MemoryChange[] }) {
  return (
    <Section title="State transitions">
      <table class="grid">
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">Operation</th>
            <th scope="col">Revision</th>
            <th scope="col">State</th>
            <th scope="col">Reason</th>
            <th scope="col">When</th>
          </tr>
        </thead>
        <tbody>
          {transitions.map((t) => (
            <tr key={t.seq}>
              <td class="num">{t.seq}</td>
              <td>
                <span class={`badge op-${t.op}`}>{t.op}</span>
              </td>
              <td>
                {t.from_revision ?? '∅'} → {t.to_revision}
              </td>
              <td>
                {t.from_state ?? '∅'} → {t.to_state}
              </td>
              <td>{t.reason ?? ''}</td>
              <td>
                <Time at={t.at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  )
}
