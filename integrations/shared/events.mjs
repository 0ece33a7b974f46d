// What each hook event does, for every host (a host profile names its ids and fields):
// SessionStart injects the scope's brief, UserPromptSubmit injects recall and captures the prompt,
// Stop captures the turn's outcome, PreCompact captures the conversation compaction would drop.
// A memory version injected once in a session is not injected again until a compaction (the
// session state). Every step records its outcome in the run's Diagnostics; a failed step never
// stops the others.
import { createHash } from 'node:crypto'
import { isAbsolute, relative } from 'node:path'

import {
  BRIEF_MAX_BYTES,
  cutUtf8,
  recallBudget,
  recallQuery,
  utf8Bytes as bytes,
} from './budgets.mjs'
import { HookFailure } from './diagnostics.mjs'
import { preparedContent } from './envelope.mjs'
import { gitOutput } from './git.mjs'
import { hostEventName } from './hosts.mjs'
import { postJson } from './http.mjs'
import { resolveScope } from './scope.mjs'
import { loadSecretFinder } from './secret-scanner.mjs'
import { citationsOf, SessionState } from './session-state.mjs'
import { readTranscript, readTurn } from './transcript.mjs'

/** Capture bounds. */
export const MAX_PROMPT_CHARS = 200_000
export const OUTCOME_TASK_BYTES = 1000
export const OUTCOME_SUMMARY_BYTES = 4000
export const OUTCOME_MAX_PATHS = 50
export const COMPACT_MAX_BYTES = 16_000
export const COMPACT_MESSAGE_BYTES = 4000
const TASK_OUTCOME_MEDIA_TYPE = 'application/vnd.powercontext.task-outcome+json'
/** The server's route for Claude Code's http hooks (the http form). */
const HOOK_ROUTE = '/v1/hooks/claude-code'

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex')

/** The first non-blank string among `names` of the payload, trimmed. */
function identifier(payload, names) {
  for (const name of names) {
    const v = payload[name]
    if (typeof v === 'string' && v.trim() !== '') return v.trim()
  }
  return undefined
}

/**
 * One hook run's context: the host profile, payload, settings, deadline, diagnostics.
 * @typedef {{profile: object, payload: Record<string, unknown>, settings: object, env: object,
 *   deadline: number, diag: import('./diagnostics.mjs').Diagnostics}} HookRun
 */

function scopeOf(run) {
  const cwd = run.payload.cwd
  if (typeof cwd !== 'string' || cwd === '') throw new HookFailure('invalid_payload')
  return resolveScope({ cwd, env: run.env, host: run.profile.host }).scope_id
}

/** The session's state (what it was given), from the payload's session id. */
const sessionOf = (run) =>
  SessionState.load(run.env, run.profile.host, identifier(run.payload, run.profile.sessionKeys))

/** Prepares a context without the versions the session already holds, and records the new ones. */
// A server that did not answer (down, or hung past the request timeout) is not asked again in
// the same run: a hung server then costs one request timeout, not one per step.
const UNREACHABLE = new Set(['server_unavailable', 'timeout'])
const skipped = (run, step) => (run.unreachable ? (run.diag.step(step, 'skipped'), true) : false)
function failed(run, step, err) {
  run.diag.fail(step, err)
  if (UNREACHABLE.has(err?.outcome)) run.unreachable = true
}

/** Hook events as receipts name them. */
const START = 'session_start'
const PROMPT = 'user_prompt_submit'
/** A session id the server records receipts under: printable ASCII, 1–128 characters. */
const RECEIPT_SESSION = /^[\x21-\x7E]{1,128}$/

/**
 * The `receipt` of a prepare (docs/agents.md "Receipts"): the server records what this session
 * was given. None when the payload has no usable session id.
 */
function receiptOf(run, event) {
  const sessionId = identifier(run.payload, run.profile.sessionKeys)
  if (sessionId === undefined || !RECEIPT_SESSION.test(sessionId)) return undefined
  return { host: run.profile.host, session_id: sessionId, event }
}

async function prepare(run, step, scopeId, query, maxBytes, state, event) {
  if (!run.settings.recall) return run.diag.step(step, 'off')
  if (skipped(run, step)) return undefined
  try {
    const given = state.excludeRefs()
    const receipt = receiptOf(run, event)
    const body = {
      scope_id: scopeId,
      max_bytes: maxBytes,
      ...(query ? { query } : {}),
      ...(given.length > 0 ? { exclude_refs: given } : {}),
      ...(receipt === undefined ? {} : { receipt }),
    }
    const { json } = await postJson(run.settings, '/v1/context/prepare', body, run.deadline)
    const content = preparedContent(json, maxBytes)
    run.diag.step(step, content === null ? 'empty' : 'ready')
    if (content !== null) state.addRefs(citationsOf(content))
    return content ?? undefined
  } catch (err) {
    failed(run, step, err)
    return undefined
  }
}

/** Captures one content source; a text that matches a secret rule is withheld, never sent. */
async function capture(run, step, body, texts) {
  if (!run.settings.capture) return run.diag.step(step, 'off')
  // The full rule list (secretlint's preset included) loads only here, when there is text to send.
  const findSecret = await loadSecretFinder()
  const secret = texts.map((t) => findSecret(t)).find((m) => m !== undefined)
  if (secret !== undefined) return run.diag.step(step, 'secret_withheld')
  if (skipped(run, step)) return
  try {
    const { json } = await postJson(run.settings, '/v1/sources/content', body, run.deadline)
    if (!Number.isSafeInteger(json?.position) || json.position < 1) {
      throw new HookFailure('invalid_response')
    }
    run.diag.step(step, json.created === false ? 'repeat' : 'captured')
  } catch (err) {
    failed(run, step, err)
  }
}

/** The host's output adding `text` to the model's context, under the host's name of `event`. */
const context = (run, event, text) =>
  text === undefined
    ? undefined
    : {
        hookSpecificOutput: {
          hookEventName: hostEventName(run.profile, event),
          additionalContext: text,
        },
      }

function baseMetadata(run, event) {
  const { profile, payload } = run
  const sessionId = identifier(payload, profile.sessionKeys)
  return {
    origin: profile.origin,
    event,
    cwd: payload.cwd,
    ...(sessionId === undefined ? {} : { session_id: sessionId }),
  }
}

async function sessionStart(run) {
  // The http form: the server keeps what the session was given; it resets and gives the brief.
  if (run.settings.form === 'http') return tellServer(run, 'brief')
  const scopeId = scopeOf(run)
  const state = sessionOf(run)
  // After a compaction or a clear the context no longer holds what was given: give it again.
  if (run.payload.source === 'compact' || run.payload.source === 'clear') state.reset()
  const brief = await prepare(run, 'brief', scopeId, undefined, BRIEF_MAX_BYTES, state, START)
  state.briefed = true
  state.save()
  return context(run, 'SessionStart', brief)
}

async function userPromptSubmit(run) {
  // The secret rules load while the first request is under way (only events that capture).
  if (run.settings.capture) loadSecretFinder().catch(() => undefined)
  const { payload } = run
  const prompt = typeof payload.prompt === 'string' ? payload.prompt : payload.user_prompt
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new HookFailure('invalid_payload')
  const scopeId = scopeOf(run)
  const state = sessionOf(run)
  // The session's first prompt brings the brief (no SessionStart run is spent on it), then the
  // recall, which leaves out what the brief gave. Recall comes before the capture: the current
  // prompt is not part of its own recall (as in the reference).
  let brief
  if (state.kept && !state.briefed) {
    brief = await prepare(run, 'brief', scopeId, undefined, BRIEF_MAX_BYTES, state, PROMPT)
    state.briefed = true
  }
  // Both blocks together stay within the recall budget.
  const budget = recallBudget(brief)
  const recall = await prepare(run, 'recall', scopeId, recallQuery(prompt), budget, state, PROMPT)
  const content = [brief, recall].filter((c) => c !== undefined).join('\n\n') || undefined
  state.turnHead = gitHead(run)
  state.save()
  await capturePrompt(run, scopeId, prompt, 'capture')
  return context(run, 'UserPromptSubmit', content)
}

/** Captures the turn's prompt (withheld when it matches a secret rule). */
async function capturePrompt(run, scopeId, prompt, step) {
  if (prompt.length > MAX_PROMPT_CHARS) return run.diag.step(step, 'too_large')
  const { profile, payload } = run
  // Id and metadata exactly as the reference plugins send them, so either one's capture repeats.
  const sessionId = identifier(payload, profile.sessionKeys)
  const turnId = identifier(payload, profile.turnKeys)
  const identity = [scopeId, sessionId ?? '', turnId ?? '', prompt].join('\0')
  const metadata = baseMetadata(run, 'user_prompt_submit')
  if (turnId !== undefined) metadata[profile.turnMetaKey] = turnId
  const body = {
    scope_id: scopeId,
    source_id: `${profile.promptSourcePrefix}${sha256(identity)}`,
    content: prompt,
    metadata,
  }
  await capture(run, step, body, [prompt])
}

/**
 * The http form: hands the payload to the server's hook route, which keeps the session's state
 * (a reset after a clear or a compaction); returns the hook output it answered, if valid.
 */
async function tellServer(run, step) {
  if (skipped(run, step)) return undefined
  try {
    const { json } = await postJson(run.settings, HOOK_ROUTE, run.payload, run.deadline)
    const text = json?.hookSpecificOutput?.additionalContext
    run.diag.step(step, typeof text === 'string' && text !== '' ? 'ready' : 'empty')
    return typeof text === 'string' && text !== '' ? context(run, 'SessionStart', text) : undefined
  } catch (err) {
    failed(run, step, err)
    return undefined
  }
}

/** The checkout's HEAD commit id, or undefined (outside Git, no commit yet). */
const gitHead = (run) =>
  gitOutput(run.payload.cwd, run.env, ['rev-parse', '--verify', '-q', 'HEAD'], 1000)?.trim() ||
  undefined

/**
 * What the turn changed, bounded: the paths its edit tools wrote (relative to the working
 * directory when inside it) and, when HEAD moved since the prompt, the paths of the commits made
 * in between. Never the work tree's other changes (files `setup` wrote, earlier edits).
 */
function turnChanges(run, edits, state) {
  const cwd = run.payload.cwd
  const head = gitHead(run)
  const committed =
    head !== undefined && state.turnHead !== undefined && head !== state.turnHead
      ? (gitOutput(cwd, run.env, ['diff', '--name-only', '-z', state.turnHead, head], 1000) ?? '')
          .split('\0')
          .filter((p) => p !== '')
      : []
  const local = (p) => {
    if (!isAbsolute(p)) return p
    const rel = relative(cwd, p)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p
  }
  const paths = [...new Set([...edits.map(local), ...committed])]
    .slice(0, OUTCOME_MAX_PATHS)
    .map((p) => cutUtf8(p, 300))
  return { head, paths }
}

async function stop(run) {
  const { profile, payload } = run
  if (payload.stop_hook_active === true) return run.diag.step('capture', 'nothing')
  const scopeId = scopeOf(run)
  const { messages, edits } = readTurn(payload.transcript_path)
  const lastUser = messages.findLast((m) => m.role === 'user')?.text
  // The reply as the payload carries it (the host's `replyKeys`), else the transcript's last.
  const given = (profile.replyKeys ?? ['last_assistant_message'])
    .map((k) => payload[k])
    .find((v) => typeof v === 'string')
  const reply = given ?? messages.findLast((m) => m.role === 'assistant')?.text
  // The http form's UserPromptSubmit hook only reads: the turn's prompt is captured here.
  if (run.settings.form === 'http' && lastUser?.trim())
    await capturePrompt(run, scopeId, lastUser, 'prompt')
  if (reply === undefined || reply.trim() === '') return run.diag.step('capture', 'nothing')
  const state = sessionOf(run)
  const { head, paths } = turnChanges(run, edits, state)
  // The http form has no local prompt hook to note HEAD: the next turn's changes count from here.
  // (In the command form the prompt hook notes it; a detached Stop saving too could race it.)
  if (run.settings.form === 'http') {
    state.turnHead = head
    state.save()
  }
  // The task is the turn's prompt; one that carries a secret is named generically instead.
  const findSecret = await loadSecretFinder()
  const task =
    lastUser === undefined || findSecret(lastUser) !== undefined
      ? `${profile.displayName} turn`
      : lastUser
  const outcome = {
    task: cutUtf8(task.trim(), OUTCOME_TASK_BYTES),
    outcome: 'turn ended',
    summary: cutUtf8(reply.trim(), OUTCOME_SUMMARY_BYTES),
    ...(paths.length > 0 ? { changed_paths: paths } : {}),
    ...(head === undefined ? {} : { git_head: head }),
  }
  const content = JSON.stringify(outcome)
  const turnId = identifier(payload, profile.turnKeys)
  const metadata = baseMetadata(run, 'stop')
  if (turnId !== undefined) metadata[profile.turnMetaKey] = turnId
  const identity = [scopeId, metadata.session_id ?? '', turnId ?? '', content].join('\0')
  const body = {
    scope_id: scopeId,
    source_id: `${profile.origin}-task-outcome:${sha256(identity)}`,
    content,
    media_type: TASK_OUTCOME_MEDIA_TYPE,
    metadata,
  }
  await capture(run, 'capture', body, [outcome.task, outcome.summary, ...paths])
}

async function preCompact(run) {
  const { payload } = run
  const scopeId = scopeOf(run)
  // What was injected is about to be compacted away: the next prompt may give it again.
  const state = sessionOf(run)
  state.reset()
  state.save()
  if (run.settings.form === 'http') await tellServer(run, 'reset')
  const messages = readTranscript(payload.transcript_path)
  // Newest first until the budget is spent; a message matching a secret rule is left out.
  const findSecret = await loadSecretFinder()
  const kept = []
  let used = 0
  let withheld = 0
  for (const m of messages.toReversed()) {
    if (findSecret(m.text) !== undefined) {
      withheld++
      continue
    }
    const block = `## ${m.role}\n\n${cutUtf8(m.text, COMPACT_MESSAGE_BYTES)}`
    if (used + bytes(block) + 2 > COMPACT_MAX_BYTES) break
    kept.push(block)
    used += bytes(block) + 2
  }
  if (withheld > 0) run.diag.count('withheld_messages', withheld)
  if (kept.length === 0) return run.diag.step('capture', 'nothing')
  const content = kept.reverse().join('\n\n')
  const metadata = baseMetadata(run, 'pre_compact')
  if (typeof payload.trigger === 'string') metadata.trigger = payload.trigger
  metadata.messages = kept.length
  const identity = [scopeId, metadata.session_id ?? '', content].join('\0')
  const body = {
    scope_id: scopeId,
    source_id: `${run.profile.origin}-pre-compact:${sha256(identity)}`,
    content,
    media_type: 'text/markdown',
    metadata,
  }
  await capture(run, 'capture', body, [content])
}

/** Handlers by normalised event name (`UserPromptSubmit`, `user_prompt_submit` → `userpromptsubmit`). */
export const EVENT_HANDLERS = {
  sessionstart: sessionStart,
  userpromptsubmit: userPromptSubmit,
  stop,
  precompact: preCompact,
}

/** `UserPromptSubmit` and `user_prompt_submit` alike → `userpromptsubmit`. */
export const normaliseEvent = (name) =>
  typeof name === 'string' ? name.replaceAll('_', '').toLowerCase() : ''
