import { useState } from 'preact/hooks'

import type { Memory, MemoryState, SearchMode, SearchResponse } from '../client/index.js'
import { useConsole } from './context.js'
import { listKeys, useAction, useLoad } from './hooks.js'
import { MergePanel } from './merge-panel.js'
import { RememberForm } from './remember-form.js'
import { go, href } from './routes.js'
import { Pager } from './scopes-view.js'
import { ErrorBox, shortId, StateBadge } from './ui.js'
import { StaleBadge } from './stale-mark.js'

const STATES: readonly MemoryState[] = ['active', 'forgotten', 'merged', 'retired']
const PAGE = 50

/** A scope's memories: state and kind filters, keyset pages, search, remember and merge. */
export function MemoriesView({ scope }: { scope: string }) {
  const { client } = useConsole()
  const [states, setStates] = useState<readonly MemoryState[]>(['active'])
  const [kinds, setKinds] = useState('')
  const [pages, setPages] = useState<(string | undefined)[]>([undefined])
  const [selected, setSelected] = useState<ReadonlyMap<string, Memory>>(new Map())
  const after = pages.at(-1)
  const kindList = kinds
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
  const page = useLoad(
    () =>
      client.list({
        scope_id: scope,
        states: [...states],
        limit: PAGE,
        ...(kindList.length === 0 ? {} : { kinds: kindList }),
        ...(after === undefined ? {} : { after }),
      }),
    [scope, states.join(), kindList.join(), after],
  )
  const filter = (next: () => void) => {
    next()
    setPages([undefined])
  }
  const toggle = (m: Memory) => {
    const next = new Map(selected)
    if (next.has(m.memory_ref.artifact_id)) next.delete(m.memory_ref.artifact_id)
    else next.set(m.memory_ref.artifact_id, m)
    setSelected(next)
  }

  return (
    <div class="columns">
      <div class="main-column">
        <SearchPanel scope={scope} />
        <section aria-labelledby="list-heading" class="panel">
          <h2 id="list-heading">Memories</h2>
          <fieldset class="filters">
            <legend>Show states</legend>
            {STATES.map((s) => (
              <label key={s} class="check">
                <input
                  type="checkbox"
                  checked={states.includes(s)}
                  onChange={() =>
                    filter(() => {
                      const next = states.includes(s)
                        ? states.filter((x) => x !== s)
                        : [...states, s]
                      setStates(next.length === 0 ? ['active'] : next)
                    })
                  }
                />
                {s}
              </label>
            ))}
            <label class="inline">
              Kinds
              <input
                type="text"
                placeholder="fact, decision"
                value={kinds}
                onChange={(e) => filter(() => setKinds(e.currentTarget.value))}
              />
            </label>
          </fieldset>
          <ErrorBox error={page.error} />
          {page.data !== undefined && page.data.memories.length === 0 && (
            <p class="muted">No memory matches these filters.</p>
          )}
          <ul class="rows" onKeyDown={listKeys} aria-label="Memories, by memory id">
            {(page.data?.memories ?? []).map((m) => (
              <li key={m.memory_ref.artifact_id} class="row">
                <input
                  type="checkbox"
                  aria-label={`Select ${m.memory_ref.artifact_id} for a merge`}
                  disabled={m.state !== 'active'}
                  checked={selected.has(m.memory_ref.artifact_id)}
                  onChange={() => toggle(m)}
                />
                <a
                  data-nav
                  href={href({ view: 'memory', scope, memoryId: m.memory_ref.artifact_id })}
                >
                  <code title={m.memory_ref.artifact_id}>{shortId(m.memory_ref.artifact_id)}</code>
                  <span class="muted">@{m.memory_ref.revision}</span>
                </a>
                <StateBadge state={m.state} />
                <span class="kind">{m.kind}</span>
                <span class="text">{m.text}</span>
              </li>
            ))}
          </ul>
          <Pager
            hasPrevious={pages.length > 1}
            next={page.data?.next_after ?? null}
            onPrevious={() => setPages(pages.slice(0, -1))}
            onNext={(n) => setPages([...pages, n])}
            label="memories"
          />
        </section>
      </div>
      <aside class="side-column">
        <MergePanel
          scope={scope}
          selected={[...selected.values()]}
          onClear={() => setSelected(new Map())}
          onMerged={(id) => go({ view: 'memory', scope, memoryId: id })}
        />
        <RememberForm
          scope={scope}
          onRemembered={(id) => go({ view: 'memory', scope, memoryId: id })}
        />
      </aside>
    </div>
  )
}

/** The search box: the modes the server reports; each hit with its score and `matched_by`. */
function SearchPanel({ scope }: { scope: string }) {
  const { client, capabilities } = useConsole()
  const modes = capabilities.search_modes
  const [query, setQuery] = useState('')
  const [mode, setMode] = useState<SearchMode>('auto')
  const [result, setResult] = useState<SearchResponse | undefined>()
  // Changes with every answer, so that a new result can be told from the previous one.
  const [stamp, setStamp] = useState(0)
  const action = useAction()
  return (
    <section aria-labelledby="search-heading" class="panel">
      <h2 id="search-heading">Search</h2>
      <form
        class="search"
        role="search"
        onSubmit={async (e) => {
          e.preventDefault()
          const r = await action.run(() =>
            client.search({ scope_id: scope, query, mode, limit: 20 }),
          )
          setResult(r)
          setStamp((n) => n + 1)
        }}
      >
        <label for="search-query" class="sr-only">
          Search query
        </label>
        <input
          id="search-query"
          type="search"
          placeholder="Search active memories"
          value={query}
          onInput={(e) => setQuery(e.currentTarget.value)}
          required
        />
        <label for="search-mode" class="sr-only">
          Search mode
        </label>
        <select
          id="search-mode"
          value={mode}
          onChange={(e) => setMode(e.currentTarget.value as SearchMode)}
        >
          {modes.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
        <button type="submit" disabled={action.busy}>
          Search
        </button>
      </form>
      <ErrorBox error={action.error} />
      {result !== undefined && (
        <div aria-live="polite">
          <p class="muted">
            {result.hits.length} hit{result.hits.length === 1 ? '' : 's'} · mode used{' '}
            <strong>{result.mode}</strong>
          </p>
          <ol
            class="rows hits"
            onKeyDown={listKeys}
            aria-label="Search hits, best first"
            data-stamp={stamp}
          >
            {result.hits.map((h) => (
              <li key={h.memory_ref.artifact_id} class="row">
                <a
                  data-nav
                  href={href({ view: 'memory', scope, memoryId: h.memory_ref.artifact_id })}
                >
                  <code title={h.memory_ref.artifact_id}>{shortId(h.memory_ref.artifact_id)}</code>
                  <span class="muted">@{h.memory_ref.revision}</span>
                </a>
                <span class="score" title="score">
                  {h.score.toFixed(4)}
                </span>
                <span class="matched" title="matched by">
                  {h.matched_by.join(' + ')}
                </span>
                <span class="kind">{h.kind}</span>
                <span class="text">
                  {h.text} <StaleBadge mark={h.stale} />
                </span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  )
}
