import { useState } from 'preact/hooks'

import type { ArtifactRef, Redaction } from '../client/index.js'
import { useConsole } from './context.js'
import { useAction } from './hooks.js'
import { ErrorBox, Time } from './ui.js'

/** What a stored text shows once an administrator erased it: when, why, which rule found it. */
export function RedactedNote({ redaction }: { redaction: Redaction }) {
  return (
    <p class="redacted" data-testid="redacted-note">
      <span class="badge redacted-badge">redacted</span> <Time at={redaction.redacted_at} /> ·{' '}
      {redaction.reason}
      {redaction.rule === null ? '' : ` (${redaction.rule})`}
    </p>
  )
}

/** The erase target: one source, one memory version, or one flush decision record. */
export type RedactTarget = { sourceId: string } | { memoryRef: ArtifactRef } | { recordId: string }

const wireTarget = (t: RedactTarget) =>
  'sourceId' in t
    ? { source_id: t.sourceId }
    : 'recordId' in t
      ? { record_id: t.recordId }
      : { memory_ref: t.memoryRef }

/**
 * Erases a stored text through `POST /v1/admin/redact`, in two steps: a reason, then a
 * confirmation that says what stays (ids, versions, hashes, the change feed) and that the text
 * cannot come back. Needs the server's token like every other write.
 */
export function RedactPanel(props: {
  scope: string
  target: RedactTarget
  /** What is erased, as a person reads it ("revision 2", "source env-paste"). */
  label: string
  onCancel: () => void
  onDone: () => void
}) {
  const { client } = useConsole()
  const [reason, setReason] = useState('')
  const [confirming, setConfirming] = useState(false)
  const action = useAction()
  const erase = async () => {
    const t = props.target
    const r = await action.run(() =>
      client.redact({
        scope_id: props.scope,
        ...wireTarget(t),
        ...(reason.trim() === '' ? {} : { reason }),
      }),
    )
    if (r !== undefined) props.onDone()
  }
  return (
    <form
      class="panel danger-zone"
      aria-labelledby="redact-heading"
      data-testid="redact-panel"
      onSubmit={(e) => {
        e.preventDefault()
        if (confirming) void erase()
        else setConfirming(true)
      }}
    >
      <h2 id="redact-heading">Redact {props.label}</h2>
      <p class="muted">
        Erases the stored text for good (credentials, personal data). Ids, versions, hashes and the
        change feed stay; reads show “[redacted]” with the time and reason.
      </p>
      <label for="redact-reason">Reason</label>
      <input
        id="redact-reason"
        value={reason}
        disabled={confirming}
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <ErrorBox error={action.error} />
      {confirming && (
        <p class="conflict" role="alert" data-testid="redact-confirm">
          <strong>Erase the text of {props.label}?</strong> It cannot be restored afterwards.
        </p>
      )}
      <div class="buttons">
        <button type="submit" class="danger" disabled={action.busy}>
          {confirming ? 'Yes, erase it' : 'Redact…'}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
