import { useState } from 'preact/hooks'

import type { ShownError } from './api.js'
import { ErrorBox } from './ui.js'

/** Asks for the server's bearer token; the console keeps it for this tab only. */
export function TokenPrompt(props: {
  refused: ShownError | undefined
  onToken: (token: string) => void
}) {
  const [value, setValue] = useState('')
  return (
    <form
      class="panel narrow"
      aria-labelledby="token-heading"
      onSubmit={(e) => {
        e.preventDefault()
        if (value.trim() !== '') props.onToken(value.trim())
      }}
    >
      <h1 id="token-heading">This server needs a token</h1>
      <p>
        It was started with <code>POWERCONTEXT_SERVER_AUTH_TOKEN</code>. Enter that token; the
        console keeps it in this tab only (session storage) and sends it as a bearer token.
      </p>
      <ErrorBox error={props.refused} title="That token was refused" />
      <label for="token">Bearer token</label>
      <input
        id="token"
        type="password"
        autoComplete="off"
        autoFocus
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <button type="submit">Connect</button>
    </form>
  )
}
