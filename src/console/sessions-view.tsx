import { useEffect, useState } from 'preact/hooks'

import type { Receipt } from '../client/index.js'
import { useConsole } from './context.js'
import { listKeys, useAction, useLoad } from './hooks.js'
import { href } from './routes.js'
import { Ago, ErrorBox, Section, shortId, Time } from './ui.js'

const PAGE = 100

/** The receipts of a scope (or of one session), newest first, with a control for older pages. */
function useReceipts(scope: string, session: string | undefined) {
  const { client } = useConsole()
  const [receipts, setReceipts] = useState<readonly Receipt[]>([])
  const [before, setBefore] = useState<string | null>(null)
  const [loaded, setLoaded] = useState(false)
  const action = useAction()
  const more = async (from: string | null, shown: readonly Receipt[]) => {
    const r = await action.run(() =>
      client.contextReceipts({
        scope_id: scope,
        ...(session === undefined ? {} : { session_id: session }),
        ...(from === null ? {} : { before: from }),
        limit: PAGE,
      }),
    )
    if (r === undefined) return
    setReceipts([...shown, ...r.receipts])
    setBefore(r.next_before)
    setLoaded(true)
  }
  useEffect(() => {
    void more(null, [])
  }, [scope, session])
  return { receipts, loaded, action, more: () => more(before, receipts), hasMore: before !== null }
}

/**
 * What prepared context gave the agent sessions of a scope (receipts): without `session`, the
 * sessions seen, newest first; with it, that session's timeline, one entry per prepare.
 */
export function SessionsView({ scope, session }: { scope: string; session: string | undefined }) {
  const r = useReceipts(scope, session)
  return (
    <section aria-labelledby="sessions-heading">
      <h1 id="sessions-heading">
        {session === undefined ? (
          'Sessions'
        ) : (
          <>
            Session <code>{session}</code>
          </>
        )}
      </h1>
      <p class="muted">
        What the agent hooks injected, as memory versions (receipts keep refs, never text); kept for
        a bounded time.
      </p>
      <ErrorBox error={r.action.error} />
      {r.loaded && r.receipts.length === 0 && <p>No receipts yet.</p>}
      {session === undefined ? (
        <SessionList scope={scope} receipts={r.receipts} />
      ) : (
        <Timeline scope={scope} receipts={[...r.receipts].reverse()} />
      )}
      {r.hasMore && (
        <button type="button" disabled={r.action.busy} onClick={() => void r.more()}>
          Load older receipts
        </button>
      )}
    </section>
  )
}

function SessionList({ scope, receipts }: { scope: string; receipts: readonly Receipt[] }) {
  const sessions = new Map<string, Receipt[]>()
  for (const r of receipts) sessions.set(r.session_id, [...(sessions.get(r.session_id) ?? []), r])
  return (
    <table class="sessions">
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Host</th>
          <th scope="col">Injections</th>
          <th scope="col">Items</th>
          <th scope="col">≈ tokens</th>
          <th scope="col">Last</th>
        </tr>
      </thead>
      <tbody onKeyDown={listKeys}>
        {[...sessions].map(([id, rs]) => (
          <tr key={id}>
            <td>
              <a data-nav href={href({ view: 'sessions', scope, session: id })}>
                <code>{id}</code>
              </a>
            </td>
            <td>{rs[0]!.host}</td>
            <td>{rs.length}</td>
            <td>{rs.reduce((n, r) => n + r.items.length, 0)}</td>
            <td>{rs.reduce((n, r) => n + r.token_estimate, 0).toLocaleString()}</td>
            <td>
              <Ago at={rs[0]!.created_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The texts of the memory versions the receipts cite (`id@revision` → text), read once each. */
function useTexts(scope: string, receipts: readonly Receipt[]) {
  const { client } = useConsole()
  const refs = [
    ...new Set(
      receipts.flatMap((r) =>
        r.items.map((i) => `${i.memory_ref.artifact_id}@${i.memory_ref.revision}`),
      ),
    ),
  ]
  return useLoad(async () => {
    const texts = new Map<string, string>()
    await Promise.all(
      refs.map(async (ref) => {
        const [id, revision] = ref.split('@') as [string, string]
        const got = await client
          .get({ scope_id: scope, memory_ref: { artifact_id: id, revision: Number(revision) } })
          .catch(() => undefined)
        if (got !== undefined) texts.set(ref, got.memory.redaction ? '(redacted)' : got.memory.text)
      }),
    )
    return texts
  }, [scope, refs.join(' ')])
}

function Timeline({ scope, receipts }: { scope: string; receipts: readonly Receipt[] }) {
  const texts = useTexts(scope, receipts).data
  return (
    <ol class="timeline" onKeyDown={listKeys} aria-label="Injections, oldest first">
      {receipts.map((r) => (
        <li key={r.receipt_id} class="event">
          <p>
            <Time at={r.created_at} /> · <strong>{r.event}</strong> ·{' '}
            <span class="badge">{r.kind}</span>{' '}
            {r.status === 'empty' ? (
              <span class="muted">nothing new to inject</span>
            ) : (
              <>
                {r.items.length} item{r.items.length === 1 ? '' : 's'} ·{' '}
                {r.content_bytes.toLocaleString()} bytes ≈ {r.token_estimate.toLocaleString()}{' '}
                tokens
              </>
            )}{' '}
            · {r.duration_ms} ms
            {!r.within_budget && <span class="badge budget-cut">cut to fit</span>}
          </p>
          <ul class="plain">
            {r.items.map((i) => {
              const ref = `${i.memory_ref.artifact_id}@${i.memory_ref.revision}`
              return (
                <li key={ref} class="injected">
                  <a
                    data-nav
                    href={href({ view: 'memory', scope, memoryId: i.memory_ref.artifact_id })}
                  >
                    <code title={i.memory_ref.artifact_id}>
                      {shortId(i.memory_ref.artifact_id)}@{i.memory_ref.revision}
                    </code>
                  </a>{' '}
                  {i.scope_id !== scope && <span class="muted">({i.scope_id}) </span>}
                  <span class="injected-text">{texts?.get(ref) ?? ''}</span>
                  {i.truncated && <span class="muted"> (truncated)</span>}
                </li>
              )
            })}
          </ul>
        </li>
      ))}
    </ol>
  )
}

/**
 * How often sessions were given this memory (its receipts): "injected 14 times in 6 sessions,
 * last 2 hours ago", and the latest sessions, each opening its timeline.
 */
export function InjectionUsage({ scope, memoryId }: { scope: string; memoryId: string }) {
  const { client } = useConsole()
  const usage = useLoad(
    () => client.contextReceipts({ scope_id: scope, memory_id: memoryId, limit: 20 }),
    [scope, memoryId],
  )
  const u = usage.data?.usage
  const sessions = [...new Set(usage.data?.receipts.map((r) => r.session_id) ?? [])].slice(0, 5)
  return (
    <Section title="Given to sessions" id="usage">
      <ErrorBox error={usage.error} />
      {u !== undefined && u !== null && (
        <p data-testid="injection-usage">
          {u.injections === 0 ? (
            'Not injected into any session the receipts still hold.'
          ) : (
            <>
              Injected {u.injections} time{u.injections === 1 ? '' : 's'} in {u.sessions} session
              {u.sessions === 1 ? '' : 's'}, last <Ago at={u.last_at} />.
            </>
          )}
        </p>
      )}
      {sessions.length > 0 && (
        <ul class="plain">
          {sessions.map((s) => (
            <li key={s}>
              <a href={href({ view: 'sessions', scope, session: s })}>
                <code>{s}</code>
              </a>
            </li>
          ))}
        </ul>
      )}
    </Section>
  )
}
