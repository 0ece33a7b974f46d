// What each hook event does, for every host (a host profile names its ids and fields):
// SessionStart injects the scope's brief, UserPromptSubmit injects recall and captures the prompt,
// Stop captures the turn's outcome, PreCompact captures the conversation compaction would drop.
// Every step records its outcome in the run's Diagnostics; a failed step never stops the others.
import { createHash } from 'node:crypto'

import { HookFailure } from './diagnostics.mjs'
import { preparedContent } from './envelope.mjs'
import { gitOutput } from './git.mjs'
import { postJson } from './http.mjs'
import { resolveScope } from './scope.mjs'
import { loadSecretFinder } from './secret-scanner.mjs'
import { readTranscript } from './transcript.mjs'

/** Prepared-context budgets (UTF-8 bytes): the reference's 8,000 for recall, less for the brief. */
export const RECALL_MAX_BYTES = 8000
export const BRIEF_MAX_BYTES = 4000
/** Capture bounds. */
export const MAX_PROMPT_CHARS = 200_000
export const OUTCOME_TASK_BYTES = 1000
export const OUTCOME_SUMMARY_BYTES = 4000
export const OUTCOME_MAX_PATHS = 50
export const COMPACT_MAX_BYTES = 16_000
export const COMPACT_MESSAGE_BYTES = 4000
const TASK_OUTCOME_MEDIA_TYPE = 'application/vnd.powercontext.task-outcome+json'

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex')
const bytes = (text) => Buffer.byteLength(text, 'utf8')

/** `text` cut to at most `max` UTF-8 bytes on a character boundary, ending in `…` when cut. */
export function cutUtf8(text, max) {
  if (bytes(text) <= max) return text
  let out = ''
  let used = 3
  for (const ch of text) {
    used += bytes(ch)
    if (used > max) break
    out += ch
  }
  return `${out}…`
}

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

async function prepare(run, scopeId, query, maxBytes) {
  if (!run.settings.recall) return run.diag.step('recall', 'off')
  try {
    const body = { scope_id: scopeId, max_bytes: maxBytes, ...(query ? { query } : {}) }
    const { json } = await postJson(run.settings, '/v1/context/prepare', body, run.deadline)
    const content = preparedContent(json, maxBytes)
    run.diag.step('recall', content === null ? 'empty' : 'ready')
    return content ?? undefined
  } catch (err) {
    run.diag.fail('recall', err)
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
  try {
    const { json } = await postJson(run.settings, '/v1/sources/content', body, run.deadline)
    if (!Number.isSafeInteger(json?.position) || json.position < 1) {
      throw new HookFailure('invalid_response')
    }
    run.diag.step(step, json.created === false ? 'repeat' : 'captured')
  } catch (err) {
    run.diag.fail(step, err)
  }
}

const context = (eventName, text) =>
  text === undefined
    ? undefined
    : { hookSpecificOutput: { hookEventName: eventName, additionalContext: text } }

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
  const scopeId = scopeOf(run)
  return context('SessionStart', await prepare(run, scopeId, undefined, BRIEF_MAX_BYTES))
}

async function userPromptSubmit(run) {
  const { profile, payload } = run
  const prompt = typeof payload.prompt === 'string' ? payload.prompt : payload.user_prompt
  if (typeof prompt !== 'string' || prompt.trim() === '') throw new HookFailure('invalid_payload')
  const scopeId = scopeOf(run)
  // Recall first: the current prompt is not part of its own recall (as in the reference).
  const content = await prepare(run, scopeId, prompt, RECALL_MAX_BYTES)
  if (prompt.length <= MAX_PROMPT_CHARS) {
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
    await capture(run, 'capture', body, [prompt])
  } else run.diag.step('capture', 'too_large')
  return context('UserPromptSubmit', content)
}

/** Changed paths and HEAD of the checkout, bounded; nothing outside Git. */
function gitState(run) {
  const cwd = run.payload.cwd
  const head = gitOutput(cwd, run.env, ['rev-parse', '--verify', '-q', 'HEAD'], 1000)?.trim()
  const status = gitOutput(cwd, run.env, ['status', '--porcelain=v1', '-z'], 1000) ?? ''
  const paths = status
    .split('\0')
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3))
    .slice(0, OUTCOME_MAX_PATHS)
    .map((p) => cutUtf8(p, 300))
  return { head: head || undefined, paths }
}

async function stop(run) {
  const { profile, payload } = run
  if (payload.stop_hook_active === true) return run.diag.step('capture', 'nothing')
  const scopeId = scopeOf(run)
  const messages = readTranscript(payload.transcript_path)
  const lastUser = messages.findLast((m) => m.role === 'user')?.text
  const reply =
    typeof payload.last_assistant_message === 'string'
      ? payload.last_assistant_message
      : messages.findLast((m) => m.role === 'assistant')?.text
  if (reply === undefined || reply.trim() === '') return run.diag.step('capture', 'nothing')
  const { head, paths } = gitState(run)
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
