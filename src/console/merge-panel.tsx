import { useEffect, useState } from 'preact/hooks'

import type { Memory } from '../client/index.js'
import { useConsole } from './context.js'
import { useAction } from './hooks.js'
import { KindInput } from './remember-form.js'
import { ErrorBox, shortId } from './ui.js'

/**
 * Merges the selected active memories (each at the revision shown) into a new memory with a
 * composed text and kind; the inputs become `merged` and can come back by restoring one of them.
 */
export function MergePanel(props: {
  scope: string
  selected: readonly Memory[]
  onClear: () => void
  onMerged: (memoryId: string) => void
}) {
  const { client } = useConsole()
  const [text, setText] = useState('')
  const [kind, setKind] = useState('fact')
  const [reason, setReason] = useState('')
  const action = useAction()
  const ids = props.selected.map((m) => m.memory_ref.artifact_id).join()
  useEffect(() => {
    setText(props.selected.map((m) => m.text).join(' '))
    setKind(props.selected[0]?.kind ?? 'fact')
    // Compose afresh when the selection changes.
  }, [ids])
  if (props.selected.length === 0)
    return (
      <section class="panel" aria-labelledby="merge-heading">
        <h2 id="merge-heading">Merge</h2>
        <p class="muted">Select two or more active memories in the list to merge them.</p>
      </section>
    )
  return (
    <form
      class="panel"
      aria-labelledby="merge-heading"
      onSubmit={async (e) => {
        e.preventDefault()
        const r = await action.run(() =>
          client.merge({
            scope_id: props.scope,
            inputs: props.selected.map((m) => m.memory_ref),
            kind,
            text,
            ...(reason.trim() === '' ? {} : { reason }),
          }),
        )
        if (r !== undefined) {
          props.onClear()
          props.onMerged(r.memory.memory_ref.artifact_id)
        }
      }}
    >
      <h2 id="merge-heading">Merge {props.selected.length} memories</h2>
      <ul class="plain">
        {props.selected.map((m) => (
          <li key={m.memory_ref.artifact_id}>
            <code>{shortId(m.memory_ref.artifact_id)}</code>@{m.memory_ref.revision} {m.text}
          </li>
        ))}
      </ul>
      <label for="merge-kind">Kind of the result</label>
      <KindInput id="merge-kind" value={kind} onInput={setKind} />
      <label for="merge-text">Composed text</label>
      <textarea
        id="merge-text"
        rows={4}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        required
      />
      <label for="merge-reason">Reason (optional)</label>
      <input id="merge-reason" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      <ErrorBox error={action.error} />
      <div class="buttons">
        <button type="submit" disabled={action.busy || props.selected.length < 2}>
          Merge
        </button>
        <button type="button" class="quiet" onClick={props.onClear}>
          Clear selection
        </button>
      </div>
    </form>
  )
}
