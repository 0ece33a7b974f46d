// The one entry of every hook program: read the host's JSON payload from stdin, run the event's
// handler within the whole-hook budget, print the host's output (if any) on stdout, and exit 0 —
// on every failure too (fail open), with at most one JSON diagnostic line on stderr.
import { Diagnostics, HookFailure } from './diagnostics.mjs'
import { EVENT_HANDLERS, normaliseEvent } from './events.mjs'
import { MAX_PAYLOAD_BYTES } from './hook-entry.mjs'
import { ourEventName } from './hosts.mjs'
import { readSettings } from './settings.mjs'

/** @type {Record<string, string>} */
const EVENT_NAMES = {
  sessionstart: 'SessionStart',
  userpromptsubmit: 'UserPromptSubmit',
  stop: 'Stop',
  precompact: 'PreCompact',
}

/**
 * Runs one hook for a host and exits the process with 0. The payload is read from `input`
 * (stdin, or the bytes a detached worker was handed).
 * @param {import('./hosts.mjs').HostProfile} profile the host's row of `HOST_PROFILES`
 */
export async function runHook(profile, io = process, input = io.stdin) {
  const started = Date.now()
  const env = io.env
  const diag = new Diagnostics({ component: profile.component, event: 'unknown', started })
  // A host that has gone away closed the pipe: a diagnostic line it cannot read is dropped.
  io.stderr.on?.('error', () => {})
  io.stdout.on?.('error', () => {})
  const done = () => {
    diag.flush(io.stderr)
    io.exit(0)
  }
  try {
    const settings = readSettings(env, profile.host)
    const deadline = started + settings.budgetMs
    // The safety net: whatever is still running at the budget's end, the hook ends, exit 0.
    setTimeout(() => {
      diag.step('budget', 'timeout')
      done()
    }, settings.budgetMs + 50).unref()
    const payload = await readPayload(input)
    const key = normaliseEvent(ourEventName(profile, payload.hook_event_name))
    const handler = EVENT_HANDLERS[key]
    if (handler === undefined) return done()
    diag.run.event = EVENT_NAMES[key] ?? key
    const output = await handler({ profile, payload, settings, env, deadline, diag })
    if (output !== undefined) io.stdout.write(`${JSON.stringify(output)}\n`)
  } catch (err) {
    diag.fail('hook', err)
  }
  done()
}

/** @param {AsyncIterable<Buffer>} stdin */
async function readPayload(stdin) {
  const chunks = []
  let size = 0
  for await (const chunk of stdin) {
    size += chunk.length
    if (size > MAX_PAYLOAD_BYTES) throw new HookFailure('invalid_payload')
    chunks.push(chunk)
  }
  let payload
  try {
    payload = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HookFailure('invalid_payload')
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    throw new HookFailure('invalid_payload')
  }
  return payload
}
