import { useState } from 'preact/hooks'

import type { ScopeSummary } from '../client/index.js'
import { useConsole } from './context.js'
import { listKeys, useLoad } from './hooks.js'
import { href } from './routes.js'
import { ErrorBox, Time } from './ui.js'

const PAGE = 100

/** Every scope with its memory counts per state and the time of its last change (keyset pages). */
export function ScopesView() {
  const { client } = useConsole()
  const [pages, setPages] = useState<(string | undefined)[]>([undefined])
  const after = pages.at(-1)
  const page = useLoad(
    () => client.listScopes({ limit: PAGE, ...(after === undefined ? {} : { after }) }),
    [after],
  )
  const scopes: readonly ScopeSummary[] = page.data?.scopes ?? []
  return (
    <section aria-labelledby="scopes-heading">
      <h1 id="scopes-heading">Scopes</h1>
      <ErrorBox error={page.error} />
      {page.data !== undefined && scopes.length === 0 && pages.length === 1 && (
        <p>No scope holds a memory or a source yet. Remember something through the API or CLI.</p>
      )}
      {scopes.length > 0 && (
        <table class="grid" onKeyDown={listKeys}>
          <caption class="sr-only">Scopes, by scope id</caption>
          <thead>
            <tr>
              <th scope="col">Scope</th>
              <th scope="col" class="num">
                Active
              </th>
              <th scope="col" class="num">
                Forgotten
              </th>
              <th scope="col" class="num">
                Merged
              </th>
              <th scope="col" class="num">
                Retired
              </th>
              <th scope="col">Last change</th>
              <th scope="col">Sources flushed</th>
            </tr>
          </thead>
          <tbody>
            {scopes.map((s) => (
              <tr key={s.scope_id}>
                <td>
                  <a data-nav href={href({ view: 'memories', scope: s.scope_id })}>
                    {s.scope_id}
                  </a>
                </td>
                <td class="num">{s.counts.active}</td>
                <td class="num">{s.counts.forgotten}</td>
                <td class="num">{s.counts.merged}</td>
                <td class="num">{s.counts.retired}</td>
                <td>
                  <Time at={s.last_change_at} />
                </td>
                <td>
                  {s.high_watermark === 0 ? (
                    <span class="muted">no sources</span>
                  ) : (
                    <a href={href({ view: 'sources', scope: s.scope_id })}>
                      {s.cursor} of {s.high_watermark}
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager
        hasPrevious={pages.length > 1}
        next={page.data?.next_after ?? null}
        onPrevious={() => setPages(pages.slice(0, -1))}
        onNext={(n) => setPages([...pages, n])}
        label="scopes"
      />
    </section>
  )
}

/** Previous / next buttons over keyset pages (the caller keeps the stack of cursors). */
export function Pager<T>(props: {
  hasPrevious: boolean
  next: T | null
  onPrevious: () => void
  onNext: (next: T) => void
  label: string
}) {
  if (!props.hasPrevious && props.next === null) return null
  return (
    <nav class="pager" aria-label={`Pages of ${props.label}`}>
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous page
      </button>
      <button
        type="button"
        disabled={props.next === null}
        onClick={() => props.next !== null && props.onNext(props.next)}
      >
        Next page
      </button>
    </nav>
  )
}
