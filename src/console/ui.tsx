import type { ComponentChildren } from 'preact'

import type { ShownError } from './api.js'

/** A failed call: the envelope's code and message, and the request id to find it in the logs. */
export function ErrorBox({ error, title }: { error: ShownError | undefined; title?: string }) {
  if (error === undefined) return null
  return (
    <div class="error" role="alert">
      <strong>{title ?? 'The server refused this'}</strong>
      <p>
        <code class="code">{error.code}</code> {error.message}
      </p>
      {error.requestId !== null && (
        <p class="muted">
          request id <code data-testid="request-id">{error.requestId}</code>
        </p>
      )}
    </div>
  )
}

/** A memory state, coloured the same everywhere (list, memory, graph legend). */
export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{state}</span>
}

/** A short, readable memory id: `mem_…` + its last 6 characters. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-6)}` : id
}

/** A timestamp in the reader's locale, with the exact ISO value on hover. */
export function Time({ at }: { at: string | null }) {
  if (at === null) return <span class="muted">never</span>
  return (
    <time dateTime={at} title={at}>
      {new Date(at).toLocaleString()}
    </time>
  )
}

const UNITS = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
] as const

/** A timestamp as "2 hours ago" (the reader's language), with the exact ISO value on hover. */
export function Ago({ at, now = Date.now() }: { at: string | null; now?: number }) {
  if (at === null) return <span class="muted">never</span>
  const seconds = Math.round((new Date(at).getTime() - now) / 1000)
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
  const unit = UNITS.find(([, size]) => Math.abs(seconds) >= size)
  const text =
    unit === undefined
      ? format.format(seconds, 'second')
      : format.format(Math.round(seconds / unit[1]), unit[0])
  return (
    <time dateTime={at} title={at}>
      {text}
    </time>
  )
}

export function Section(props: { title: string; children: ComponentChildren; id?: string }) {
  const headingId = `${props.id ?? props.title.toLowerCase().replace(/\W+/g, '-')}-heading`
  return (
    <section aria-labelledby={headingId} class="panel">
      <h2 id={headingId}>{props.title}</h2>
      {props.children}
    </section>
  )
}

/** Long text clipped to `max` characters with a control to show it whole. */
export function Clipped({ text, max = 600 }: { text: string; max?: number }) {
  if (text.length <= max) return <pre class="content">{text}</pre>
  return (
    <details class="clipped">
      <summary>
        <pre class="content">{text.slice(0, max)}…</pre>
        <span class="link">show all {text.length.toLocaleString()} characters</span>
      </summary>
      <pre class="content">{text}</pre>
    </details>
  )
}

/** The button that fetches the next page of a bounded answer, with the page's error below it. */
export function MoreButton(props: {
  more: { readonly busy: boolean; readonly error: ShownError | undefined }
  onClick: () => void
  children: ComponentChildren
}) {
  return (
    <>
      <p>
        <button type="button" disabled={props.more.busy} onClick={props.onClick}>
          {props.children}
        </button>
      </p>
      <ErrorBox error={props.more.error} />
    </>
  )
}
