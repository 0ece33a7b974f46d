import { useState } from 'preact/hooks'

import type { FlushRecord, FlushResponse } from '../client/index.js'
import { useConsole } from './context.js'
import { listKeys, useAction, useLoad } from './hooks.js'
import { href } from './routes.js'
import { RedactedNote, RedactPanel } from './redact-panel.js'
import { Pager } from './scopes-view.js'
import { Clipped, ErrorBox, Section, shortId, Time } from './ui.js'

/** The scope's journal (position, cursor, high watermark, sources), flush, and flush records. */
export function SourcesView({ scope }: { scope: string }) {
  const { client, capabilities } = useConsole()
  const [pages, setPages] = useState<number[]>([0])
  const after = pages.at(-1) ?? 0
  const journal = useLoad(
    () => client.listSources({ scope_id: scope, after, limit: 20 }),
    [scope, after],
  )
  const records = useLoad(() => client.flushRecords({ scope_id: scope, limit: 50 }), [scope])
  const [flushed, setFlushed] = useState<FlushResponse | undefined>()
  const flush = useAction()
  const [redacting, setRedacting] = useState<string | undefined>()
  const j = journal.data
  return (
    <div>
      <h1>Sources and flush</h1>
      <Section title="Journal">
        <ErrorBox error={journal.error} />
        {j !== undefined && (
          <dl class="facts">
            <div>
              <dt>High watermark (last captured position)</dt>
              <dd data-testid="high-watermark">{j.high_watermark}</dd>
            </div>
            <div>
              <dt>Cursor (processed through)</dt>
              <dd data-testid="cursor">{j.cursor}</dd>
            </div>
            <div>
              <dt>Pending</dt>
              <dd>{j.high_watermark - j.cursor}</dd>
            </div>
            <div>
              <dt>Extraction</dt>
              <dd>
                {capabilities.extraction.mode}
                {capabilities.extraction.model === null
                  ? ''
                  : ` (${capabilities.extraction.model})`}
              </dd>
            </div>
          </dl>
        )}
        <form
          class="inline-form"
          onSubmit={async (e) => {
            e.preventDefault()
            const r = await flush.run(() =>
              client.flush({ scope_id: scope }, { timeoutMs: 300_000 }),
            )
            if (r !== undefined) {
              setFlushed(r)
              journal.reload()
              records.reload()
            }
          }}
        >
          <button type="submit" disabled={flush.busy}>
            Flush now
          </button>
          <span class="muted">processes one window of pending sources</span>
        </form>
        <ErrorBox error={flush.error} title="Flush failed; the cursor did not move" />
        {flushed !== undefined && (
          <p role="status" data-testid="flush-result">
            Flush {flushed.status}: cursor {flushed.previous_cursor} → {flushed.cursor} of{' '}
            {flushed.high_watermark}, {flushed.processed_source_count} source
            {flushed.processed_source_count === 1 ? '' : 's'} processed, {flushed.changes.length}{' '}
            change{flushed.changes.length === 1 ? '' : 's'}
            {flushed.skipped_sources.length > 0 && `, ${flushed.skipped_sources.length} skipped`}.
          </p>
        )}
        <ol class="rows sources" onKeyDown={listKeys} aria-label="Captured sources, by position">
          {(j?.sources ?? []).map((s) => (
            <li key={s.position} class="source" tabIndex={0} data-nav>
              <p>
                <strong>#{s.position}</strong> <code>{s.source.source_id}</code> · {s.media_type} ·{' '}
                <span class={`badge source-${s.status}`}>{s.status}</span> · captured{' '}
                <Time at={s.captured_at} />
              </p>
              {s.failure !== null && (
                <p class="skip-reason">
                  {s.status === 'skipped' ? 'Skipped' : 'Failing'} after {s.failure.attempts}{' '}
                  attempt{s.failure.attempts === 1 ? '' : 's'}: <code>{s.failure.error.code}</code>{' '}
                  {s.failure.error.message}
                </p>
              )}
              {s.redaction ? (
                <RedactedNote redaction={s.redaction} />
              ) : (
                <>
                  <Clipped text={s.content} max={300} />
                  {Object.keys(s.metadata).length > 0 && (
                    <p class="muted">metadata {JSON.stringify(s.metadata)}</p>
                  )}
                  {redacting !== s.source.source_id && (
                    <button
                      type="button"
                      class="quiet small"
                      onClick={() => setRedacting(s.source.source_id)}
                    >
                      Redact…
                    </button>
                  )}
                </>
              )}
              {redacting === s.source.source_id && (
                <RedactPanel
                  scope={scope}
                  target={{ sourceId: s.source.source_id }}
                  label={`source ${s.source.source_id}`}
                  onCancel={() => setRedacting(undefined)}
                  onDone={() => {
                    setRedacting(undefined)
                    journal.reload()
                    // The decision records quoting the source were erased with it.
                    records.reload()
                  }}
                />
              )}
            </li>
          ))}
        </ol>
        <Pager
          hasPrevious={pages.length > 1}
          next={j?.next_after ?? null}
          onPrevious={() => setPages(pages.slice(0, -1))}
          onNext={(n) => setPages([...pages, n])}
          label="sources"
        />
      </Section>
      <Section title="Flush records">
        <ErrorBox error={records.error} />
        {records.data?.records.length === 0 && <p class="muted">No flush has run in this scope.</p>}
        <ol class="plain records">
          {(records.data?.records ?? []).map((r) => (
            <Record key={r.record_id} scope={scope} record={r} onChanged={records.reload} />
          ))}
        </ol>
      </Section>
    </div>
  )
}

type Details = {
  candidates?: { kind?: string; text?: string; sources?: string[] }[]
  decisions?: { candidate?: number; action?: string; targets?: string[] }[]
  sources?: { source_id?: string; position?: number; outcome?: string; note?: string | null }[]
  failure?: { code?: string; message?: string }
  refused?: { source_id?: string; reason?: string }[]
}

/**
 * One decision record: its window, what was decided for each candidate, per-source outcomes; an
 * erased one shows when and why instead.
 */
function Record(props: { scope: string; record: FlushRecord; onChanged: () => void }) {
  const { scope, record } = props
  const d = record.details as Details
  const [redacting, setRedacting] = useState(false)
  const redact = redacting ? (
    <RedactPanel
      scope={scope}
      target={{ recordId: record.record_id }}
      label={`decision record ${record.record_id}`}
      onCancel={() => setRedacting(false)}
      onDone={() => {
        setRedacting(false)
        props.onChanged()
      }}
    />
  ) : (
    <button type="button" class="quiet small" onClick={() => setRedacting(true)}>
      Redact…
    </button>
  )
  return (
    <li class="record">
      <p>
        <strong>
          positions {record.from_position + 1}–{record.to_position}
        </strong>{' '}
        · {record.mode}
        {record.model === null ? '' : ` (${record.model})`} · <Time at={record.created_at} /> ·{' '}
        <code>{record.record_id}</code>
      </p>
      {record.redaction ? <RedactedNote redaction={record.redaction} /> : redact}
      {d.failure !== undefined && (
        <p class="skip-reason">
          Skipped a source: <code>{d.failure.code}</code> {d.failure.message}
        </p>
      )}
      {(d.decisions ?? []).length > 0 && (
        <ul class="plain">
          {(d.decisions ?? []).map((x, i) => {
            const c = x.candidate === undefined ? undefined : d.candidates?.[x.candidate]
            return (
              <li key={i}>
                <span class={`badge op-${x.action ?? ''}`}>{x.action}</span> {c?.kind}: {c?.text}
                {(x.targets ?? []).map((t) => (
                  <a key={t} href={href({ view: 'memory', scope, memoryId: t })}>
                    {' '}
                    <code>{shortId(t)}</code>
                  </a>
                ))}
              </li>
            )
          })}
        </ul>
      )}
      {(d.sources ?? []).length > 0 && (
        <ul class="plain outcomes" aria-label="Per-source outcomes">
          {(d.sources ?? []).map((o) => (
            <li key={o.position}>
              #{o.position} <code>{o.source_id}</code>: {o.outcome}
              {o.note === null || o.note === undefined ? '' : ` — ${o.note}`}
            </li>
          ))}
        </ul>
      )}
      {(d.refused ?? []).map((r, i) => (
        <p key={i} class="muted">
          refused {r.source_id}: {r.reason}
        </p>
      ))}
      <details>
        <summary>Record details (JSON)</summary>
        <pre class="content">{JSON.stringify(record.details, null, 2)}</pre>
      </details>
    </li>
  )
}
