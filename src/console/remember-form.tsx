import { useState } from 'preact/hooks'

import { useConsole } from './context.js'
import { useAction } from './hooks.js'
import { ErrorBox } from './ui.js'

export const KINDS = ['fact', 'preference', 'decision', 'constraint', 'working_note'] as const

/** A kind input with the known kinds as suggestions (the kind is an open string). */
export function KindInput(props: { id: string; value: string; onInput: (v: string) => void }) {
  return (
    <>
      <input
        id={props.id}
        list={`${props.id}-kinds`}
        value={props.value}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        required
      />
      <datalist id={`${props.id}-kinds`}>
        {KINDS.map((k) => (
          <option key={k} value={k} />
        ))}
      </datalist>
    </>
  )
}

/** Adds one memory to the scope (`remember`); an exact duplicate is reported as unchanged. */
export function RememberForm(props: { scope: string; onRemembered: (memoryId: string) => void }) {
  const { client } = useConsole()
  const [kind, setKind] = useState('fact')
  const [text, setText] = useState('')
  const action = useAction()
  return (
    <form
      class="panel"
      aria-labelledby="remember-heading"
      onSubmit={async (e) => {
        e.preventDefault()
        const r = await action.run(() =>
          client.remember({ scope_id: props.scope, entries: [{ kind, text }] }),
        )
        const first = r?.results[0]
        if (first !== undefined) props.onRemembered(first.memory.memory_ref.artifact_id)
      }}
    >
      <h2 id="remember-heading">Remember</h2>
      <label for="remember-kind">Kind</label>
      <KindInput id="remember-kind" value={kind} onInput={setKind} />
      <label for="remember-text">Text</label>
      <textarea
        id="remember-text"
        rows={3}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        required
      />
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy}>
        Remember
      </button>
    </form>
  )
}
