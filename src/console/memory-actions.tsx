import { useEffect, useState } from 'preact/hooks'

import type { Memory, PlanRef, RestorePreviewResponse } from '../client/index.js'
import { hasCode, shownError } from './api.js'
import { useConsole } from './context.js'
import { Diff } from './diff-view.js'
import { useAction } from './hooks.js'
import { KindInput } from './remember-form.js'
import { href } from './routes.js'
import { ErrorBox, shortId } from './ui.js'

/**
 * Edits the memory at the revision shown (`update` is a compare-and-set on it). When another
 * writer got there first (`revision_conflict`), shows the newer version and lets the user apply
 * the same edit on it, or drop it.
 */
export function EditPanel(props: { scope: string; memory: Memory; onDone: () => void }) {
  const { client } = useConsole()
  const [text, setText] = useState(props.memory.text)
  const [kind, setKind] = useState(props.memory.kind)
  const [base, setBase] = useState(props.memory)
  const [newer, setNewer] = useState<Memory | undefined>()
  const action = useAction()

  const save = async (on: Memory) => {
    const r = await action.run(async () => {
      try {
        return await client.update({
          scope_id: props.scope,
          memory_ref: on.memory_ref,
          ...(text === on.text ? {} : { text }),
          ...(kind === on.kind ? {} : { kind }),
        })
      } catch (err) {
        if (!hasCode(err, 'revision_conflict')) throw err
        const current = await client.get({
          scope_id: props.scope,
          memory_id: on.memory_ref.artifact_id,
        })
        setNewer(current.memory)
        throw err
      }
    })
    if (r !== undefined) {
      setNewer(undefined)
      props.onDone()
    }
  }

  return (
    <form
      class="panel"
      aria-labelledby="edit-heading"
      onSubmit={(e) => {
        e.preventDefault()
        void save(base)
      }}
    >
      <h2 id="edit-heading">Edit</h2>
      <p class="muted">Saves a new version based on revision {base.memory_ref.revision}.</p>
      <label for="edit-kind">Kind</label>
      <KindInput id="edit-kind" value={kind} onInput={setKind} />
      <label for="edit-text">Text</label>
      <textarea
        id="edit-text"
        rows={5}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      {newer === undefined && <ErrorBox error={action.error} />}
      {newer !== undefined && (
        <div class="conflict" role="alert" data-testid="conflict">
          <strong>Someone else changed this memory meanwhile.</strong>
          <p>
            You edited revision {base.memory_ref.revision}; it is now at revision{' '}
            {newer.memory_ref.revision}
            {newer.state === 'active' ? '' : ` and ${newer.state}`}. Revision{' '}
            {newer.memory_ref.revision} says:
          </p>
          <blockquote class="memory-text">{newer.text}</blockquote>
          <p class="muted">Your edit compared with it:</p>
          <Diff before={newer} after={{ ...newer, text, kind }} />
          {action.error?.requestId !== null && (
            <p class="muted">
              <code>revision_conflict</code> · request id <code>{action.error?.requestId}</code>
            </p>
          )}
          <div class="buttons">
            <button
              type="button"
              disabled={action.busy || newer.state !== 'active'}
              onClick={() => {
                setBase(newer)
                void save(newer)
              }}
            >
              Apply my edit on revision {newer.memory_ref.revision}
            </button>
            <button type="button" class="quiet" onClick={props.onDone}>
              Discard my edit
            </button>
          </div>
        </div>
      )}
      {newer === undefined && (
        <button type="submit" disabled={action.busy}>
          Save new version
        </button>
      )}
    </form>
  )
}

/** Takes the memory out of search (restorable), expecting the revision shown. */
export function ForgetPanel(props: { scope: string; memory: Memory; onDone: () => void }) {
  const { client } = useConsole()
  const [reason, setReason] = useState('')
  const action = useAction()
  return (
    <form
      class="panel"
      aria-labelledby="forget-heading"
      onSubmit={async (e) => {
        e.preventDefault()
        const r = await action.run(() =>
          client.forget({
            scope_id: props.scope,
            memory_id: props.memory.memory_ref.artifact_id,
            expected_revision: props.memory.memory_ref.revision,
            ...(reason.trim() === '' ? {} : { reason }),
          }),
        )
        if (r !== undefined) props.onDone()
      }}
    >
      <h2 id="forget-heading">Forget</h2>
      <p class="muted">Out of search; readable; restore brings it back.</p>
      <label for="forget-reason">Reason (optional)</label>
      <input id="forget-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      <ErrorBox error={action.error} />
      <button type="submit" class="danger" disabled={action.busy}>
        Forget
      </button>
    </form>
  )
}

/**
 * Restore in two steps: the preview (what comes back, what is retired, what leaves search, the new
 * version) and then the restore with the preview's token. A `preview_stale` answer means something
 * moved after the preview: nothing was restored, and the preview is refreshed for another look.
 */
export function RestorePanel(props: {
  scope: string
  memoryId: string
  toRevision: number | undefined
  onCancel: (() => void) | undefined
  onDone: () => void
  /** Something moved under the preview: the caller reads the memory again. */
  onStale?: () => void
}) {
  const { client } = useConsole()
  const [preview, setPreview] = useState<RestorePreviewResponse | undefined>()
  const [stale, setStale] = useState<string | null | undefined>()
  const [reason, setReason] = useState('')
  const action = useAction()
  const target = {
    scope_id: props.scope,
    memory_id: props.memoryId,
    ...(props.toRevision === undefined ? {} : { to_revision: props.toRevision }),
  }
  const loadPreview = () => action.run(() => client.restorePreview(target)).then(setPreview)
  useEffect(() => {
    if (props.toRevision !== undefined) void loadPreview()
  }, [])

  const execute = async () => {
    if (preview === undefined) return
    const r = await action.run(async () => {
      try {
        return await client.restore({
          ...target,
          preview_token: preview.preview_token,
          ...(reason.trim() === '' ? {} : { reason }),
        })
      } catch (err) {
        if (!hasCode(err, 'preview_stale')) throw err
        setStale(shownError(err).requestId)
        setPreview(await client.restorePreview(target))
        props.onStale?.()
        return undefined
      }
    })
    if (r !== undefined) props.onDone()
  }

  const title =
    props.toRevision === undefined ? 'Restore' : `Restore revision ${props.toRevision}’s content`
  return (
    <section class="panel" aria-labelledby="restore-heading">
      <h2 id="restore-heading">{title}</h2>
      {preview === undefined && (
        <button type="button" disabled={action.busy} onClick={() => void loadPreview()}>
          Preview restore
        </button>
      )}
      {stale !== undefined && (
        <div class="notice" role="alert" data-testid="preview-stale">
          <strong>The preview was out of date; nothing was restored.</strong>
          <p>
            A memory it involved changed after the preview (<code>preview_stale</code>
            {stale === null ? (
              ''
            ) : (
              <>
                , request id <code>{stale}</code>
              </>
            )}
            ). The plan below was read again: check it, then restore.
          </p>
        </div>
      )}
      {preview !== undefined && (
        <div data-testid="restore-plan">
          <PlanList scope={props.scope} title="Comes back to search" refs={preview.plan.restore} />
          <PlanList
            scope={props.scope}
            title="Retired (merge results undone)"
            refs={preview.plan.retire}
          />
          <PlanList scope={props.scope} title="Leaves search" refs={preview.plan.leaving_search} />
          {preview.plan.new_version !== null && (
            <p>
              New version: <code>{shortId(preview.plan.new_version.memory_id)}</code> revision{' '}
              {preview.plan.new_version.version}, with revision{' '}
              {preview.plan.new_version.from_revision}’s content.
            </p>
          )}
          <label for="restore-reason">Reason (optional)</label>
          <input
            id="restore-reason"
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
          />
          <div class="buttons">
            <button type="button" disabled={action.busy} onClick={() => void execute()}>
              Restore now
            </button>
            <button
              type="button"
              class="quiet"
              disabled={action.busy}
              onClick={() => void loadPreview()}
            >
              Refresh preview
            </button>
            {props.onCancel !== undefined && (
              <button type="button" class="quiet" onClick={props.onCancel}>
                Cancel
              </button>
            )}
          </div>
        </div>
      )}
      <ErrorBox error={action.error} />
    </section>
  )
}

function PlanList(props: { scope: string; title: string; refs: readonly PlanRef[] }) {
  return (
    <div class="plan">
      <h3>{props.title}</h3>
      {props.refs.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul class="plain">
          {props.refs.map((r) => (
            <li key={r.memory_id}>
              <a href={href({ view: 'memory', scope: props.scope, memoryId: r.memory_id })}>
                <code>{shortId(r.memory_id)}</code>
              </a>{' '}
              at revision {r.version}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
