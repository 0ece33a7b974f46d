import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

import { isUnauthorized, type ShownError, shownError } from './api.js'
import { useConsole } from './context.js'

/** A read's state: the data once loaded, the error shown otherwise. */
export interface Loaded<T> {
  readonly data: T | undefined
  readonly error: ShownError | undefined
  readonly loading: boolean
  reload(): void
}

/**
 * Runs `load` when `deps` change (and on `reload`); an `unauthorized` answer sends the console back
 * to its token prompt. A late answer of an earlier run is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const { onUnauthorized } = useConsole()
  const [state, setState] = useState<{ data?: T; error?: ShownError; loading: boolean }>({
    loading: true,
  })
  const [tick, setTick] = useState(0)
  const run = useRef(0)
  useEffect(() => {
    const mine = ++run.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => {
        if (mine === run.current) setState({ data, loading: false })
      },
      (err: unknown) => {
        if (mine !== run.current) return
        if (isUnauthorized(err)) onUnauthorized()
        setState({ error: shownError(err), loading: false })
      },
    )
  }, [...deps, tick])
  return {
    data: state.data,
    error: state.error,
    loading: state.loading,
    reload: useCallback(() => setTick((t) => t + 1), []),
  }
}

/** An action's state: running, its last error, and a runner that reports failures. */
export function useAction(): {
  readonly busy: boolean
  readonly error: ShownError | undefined
  setError(e: ShownError | undefined): void
  run<T>(work: () => Promise<T>): Promise<T | undefined>
} {
  const { onUnauthorized } = useConsole()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ShownError | undefined>()
  const run = useCallback(
    async <T>(work: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true)
      setError(undefined)
      try {
        return await work()
      } catch (err) {
        if (isUnauthorized(err)) onUnauthorized()
        setError(shownError(err))
        return undefined
      } finally {
        setBusy(false)
      }
    },
    [onUnauthorized],
  )
  return { busy, error, setError, run }
}

/**
 * The further pages of a bounded answer (at most 1 MiB each), fetched on request after the first
 * one; they are dropped when `of` (the first answer) changes, e.g. on reload.
 */
export function useMorePages<T>(of: unknown): {
  readonly pages: readonly T[]
  readonly busy: boolean
  readonly error: ShownError | undefined
  fetchNext(load: () => Promise<T>): Promise<void>
} {
  const [state, setState] = useState<{ of: unknown; pages: T[] }>({ of: undefined, pages: [] })
  const action = useAction()
  const pages = state.of === of ? state.pages : []
  const fetchNext = async (load: () => Promise<T>): Promise<void> => {
    const next = await action.run(load)
    if (next !== undefined) setState({ of, pages: [...pages, next] })
  }
  return { pages, busy: action.busy, error: action.error, fetchNext }
}

/**
 * Keyboard navigation through a list: ArrowUp/ArrowDown (and Home/End) move the focus between the
 * container's `[data-nav]` elements. Returns the container's keydown handler.
 */
export function listKeys(event: KeyboardEvent): void {
  const keys = ['ArrowDown', 'ArrowUp', 'Home', 'End']
  if (!keys.includes(event.key)) return
  const container = event.currentTarget as HTMLElement
  const items = [...container.querySelectorAll<HTMLElement>('[data-nav]')]
  if (items.length === 0) return
  const at = items.indexOf(document.activeElement as HTMLElement)
  const next =
    event.key === 'Home'
      ? 0
      : event.key === 'End'
        ? items.length - 1
        : event.key === 'ArrowDown'
          ? Math.min(items.length - 1, at + 1)
          : Math.max(0, at - 1)
  event.preventDefault()
  items[next]?.focus()
}
