import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'

import type { CapabilitiesResponse } from '../client/index.js'
import {
  consoleClient,
  isUnauthorized,
  type ShownError,
  shownError,
  storedToken,
  storeToken,
} from './api.js'
import { ChangesView } from './changes-view.js'
import { Console } from './context.js'
import { MemoriesView } from './memories-view.js'
import { MemoryView } from './memory-view.js'
import { href, type Route, useRoute } from './routes.js'
import { ScopesView } from './scopes-view.js'
import { SessionsView } from './sessions-view.js'
import { SourcesView } from './sources-view.js'
import { TokenPrompt } from './token-prompt.js'
import { ErrorBox } from './ui.js'

type Phase =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'token'; readonly refused: ShownError | undefined }
  | { readonly kind: 'failed'; readonly error: ShownError }
  | { readonly kind: 'ready'; readonly capabilities: CapabilitiesResponse }

/**
 * The console: connects with the tab's token (asking for one when the server answers
 * `unauthorized`), then shows the view the URL hash names.
 */
export function App() {
  const [token, setToken] = useState(storedToken)
  const client = useMemo(() => consoleClient(token), [token])
  const [phase, setPhase] = useState<Phase>({ kind: 'connecting' })
  const route = useRoute()

  useEffect(() => {
    let live = true
    client.capabilities().then(
      (capabilities) => live && setPhase({ kind: 'ready', capabilities }),
      (err: unknown) => {
        if (!live) return
        if (isUnauthorized(err))
          setPhase({ kind: 'token', refused: token === undefined ? undefined : shownError(err) })
        else setPhase({ kind: 'failed', error: shownError(err) })
      },
    )
    return () => {
      live = false
    }
  }, [client, token])

  const onUnauthorized = useCallback(() => setPhase({ kind: 'token', refused: undefined }), [])
  const applyToken = (t: string | undefined) => {
    storeToken(t)
    setPhase({ kind: 'connecting' })
    setToken(t)
  }

  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/">
          PowerContext
        </a>
        {phase.kind === 'ready' && (
          <span class="muted">
            server {phase.capabilities.version} · {phase.capabilities.backend ?? 'backend'}
          </span>
        )}
        {phase.kind === 'ready' && <ExtractionPaused capabilities={phase.capabilities} />}
        {token !== undefined && (
          <button type="button" class="quiet" onClick={() => applyToken(undefined)}>
            Forget token
          </button>
        )}
      </header>
      <main id="main">
        {phase.kind === 'connecting' && <p aria-live="polite">Connecting…</p>}
        {phase.kind === 'token' && <TokenPrompt refused={phase.refused} onToken={applyToken} />}
        {phase.kind === 'failed' && (
          <ErrorBox error={phase.error} title="The server cannot be used right now" />
        )}
        {phase.kind === 'ready' && (
          <Console.Provider value={{ client, capabilities: phase.capabilities, onUnauthorized }}>
            <Breadcrumbs route={route} />
            <View route={route} />
          </Console.Provider>
        )}
      </main>
    </div>
  )
}

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'scopes':
      return <ScopesView />
    case 'memories':
      return <MemoriesView key={route.scope} scope={route.scope} />
    case 'memory':
      return (
        <MemoryView
          key={`${route.scope} ${route.memoryId}`}
          scope={route.scope}
          memoryId={route.memoryId}
        />
      )
    case 'changes':
      return <ChangesView key={route.scope} scope={route.scope} />
    case 'sources':
      return <SourcesView key={route.scope} scope={route.scope} />
    case 'sessions':
      return (
        <SessionsView
          key={`${route.scope} ${route.session ?? ''}`}
          scope={route.scope}
          session={route.session}
        />
      )
  }
}

function Breadcrumbs({ route }: { route: Route }) {
  if (route.view === 'scopes') return null
  const tabs = [
    { view: 'memories', label: 'Memories' },
    { view: 'changes', label: 'Changes' },
    { view: 'sources', label: 'Sources and flush' },
    { view: 'sessions', label: 'Sessions' },
  ] as const
  const current = route.view === 'memory' ? 'memories' : route.view
  return (
    <nav aria-label="Scope" class="crumbs">
      <a href="#/">Scopes</a>
      <span aria-hidden="true"> / </span>
      <strong class="scope-id">{route.scope}</strong>
      <ul class="tabs">
        {tabs.map((t) => (
          <li key={t.view}>
            <a
              href={href({ view: t.view, scope: route.scope })}
              aria-current={current === t.view ? 'page' : undefined}
            >
              {t.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  )
}

/** The header's notice while extraction is paused (budget spent or rate-limited); it resumes by itself. */
function ExtractionPaused({ capabilities }: { capabilities: CapabilitiesResponse }) {
  const budget = capabilities.extraction.budget
  if (budget === undefined || budget === null || budget.paused_until === null) return null
  const why = budget.paused_reason === 'rate_limited' ? 'rate-limited' : 'budget spent'
  return (
    <span class="warn" role="status">
      extraction paused: {why} until {new Date(budget.paused_until).toLocaleString()}
    </span>
  )
}
