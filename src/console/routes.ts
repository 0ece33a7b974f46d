import { useEffect, useState } from 'preact/hooks'

/** The console's places, addressed by the URL hash so that every view can be linked. */
export type Route =
  | { readonly view: 'scopes' }
  | { readonly view: 'memories'; readonly scope: string }
  | { readonly view: 'memory'; readonly scope: string; readonly memoryId: string }
  | { readonly view: 'changes'; readonly scope: string }
  | { readonly view: 'sources'; readonly scope: string }
  | { readonly view: 'sessions'; readonly scope: string; readonly session?: string | undefined }

/** The hash of a route: `#/scope/<scope>/memory/<id>` and so on (scope ids are URI-encoded). */
export function href(route: Route): string {
  if (route.view === 'scopes') return '#/'
  const base = `#/scope/${encodeURIComponent(route.scope)}`
  if (route.view === 'memories') return base
  if (route.view === 'memory') return `${base}/memory/${encodeURIComponent(route.memoryId)}`
  if (route.view === 'sessions' && route.session !== undefined)
    return `${base}/sessions/${encodeURIComponent(route.session)}`
  return `${base}/${route.view}`
}

/** Parses a hash; anything unknown is the scopes view. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
  if (parts[0] !== 'scope' || parts[1] === undefined || parts[1] === '') return { view: 'scopes' }
  const scope = parts[1]
  if (parts[2] === 'memory' && parts[3] !== undefined)
    return { view: 'memory', scope, memoryId: parts[3] }
  if (parts[2] === 'changes') return { view: 'changes', scope }
  if (parts[2] === 'sources') return { view: 'sources', scope }
  if (parts[2] === 'sessions')
    return { view: 'sessions', scope, session: parts[3] === '' ? undefined : parts[3] }
  return { view: 'memories', scope }
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash))
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash))
    window.addEventListener('hashchange', onChange)
    return () => window.removeEventListener('hashchange', onChange)
  }, [])
  return route
}

export function go(route: Route): void {
  window.location.hash = href(route)
}
