/**
 * The server side of Claude Code's http hooks (`POST /v1/hooks/claude-code`): the payload Claude
 * Code posts in, the hook output it reads out. It does what the command hook does for
 * `UserPromptSubmit` — the brief on a session's first prompt, the recall of the prompt, no memory
 * version twice in a session — with the same budgets (integrations/shared/budgets.mjs), the same
 * scope resolution (integrations/shared/scope.mjs) and the same envelope check; the per-session
 * state lives in this process's memory, bounded, and holds refs only, never memory text. It
 * captures nothing: the prompt is captured by the host's Stop hook, where the secret rules run.
 */
import { isAbsolute } from 'node:path'

import { BRIEF_MAX_BYTES, recallBudget, recallQuery } from '../../integrations/shared/budgets.mjs'
import { preparedContent } from '../../integrations/shared/envelope.mjs'
import { resolveScope } from '../../integrations/shared/scope.mjs'
import { citationsOf, SessionState } from '../../integrations/shared/session-state.mjs'
import type { components } from '../contract/powercontext-types.js'
import { PowerContextError } from '../core/errors.js'

/** A Claude Code hook payload (the contract's schema). */
export type ClaudeCodeHookPayload = components['schemas']['ClaudeCodeHookPayload']
type Payload = ClaudeCodeHookPayload
type Output = components['schemas']['ClaudeCodeHookOutput']
type PrepareBody = components['schemas']['PrepareContextRequest']

/** Sessions kept in memory (the least recently used go first). */
export const MAX_HOOK_SESSIONS = 1024
/** Working directories whose scope is kept, and for how long (ms). */
const MAX_SCOPES = 256
const SCOPE_TTL_MS = 30_000
/** Environment variables that override a scope in the hooks: never the server's own. */
const SCOPE_ENV = /^POWERCONTEXT_(?:CLAUDE_|CODEX_)?SCOPE_ID$/u

/** How the request reached the server. */
export interface HookRequestContext {
  /** `X-PowerContext-Scope`, when sent. */
  readonly scopeHeader: string | undefined
  /** True when the client is on this machine (loopback address). */
  readonly loopback: boolean
}

/** Runs `POST /v1/context/prepare` (the same call path as the route itself). */
export type PrepareCall = (body: PrepareBody) => Promise<unknown>

/** A session id the receipts take: printable ASCII, 1–128 characters (as the hooks send it). */
const RECEIPT_SESSION = /^[\x21-\x7E]{1,128}$/

const normalised = (name: string): string => name.replaceAll('_', '').toLowerCase()

/** One server's http-hook handler: the sessions it served and the scopes it resolved. */
export class ClaudeCodeHooks {
  readonly #prepare: PrepareCall
  readonly #sessions = new Map<string, SessionState>()
  readonly #scopes = new Map<string, { scope: string; at: number }>()
  readonly #gitEnv: NodeJS.ProcessEnv

  constructor(prepare: PrepareCall, env: NodeJS.ProcessEnv = process.env) {
    this.#prepare = prepare
    this.#gitEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !SCOPE_ENV.test(k)))
  }

  /**
   * The hook output for a payload that passed the contract's schema.
   * @throws PowerContextError `invalid_request` for a `UserPromptSubmit` without a prompt, a
   *   relative `cwd`, or a remote client that sent no scope
   */
  async answer(payload: Payload, ctx: HookRequestContext): Promise<Output> {
    const event = normalised(payload.hook_event_name)
    if (event === 'userpromptsubmit') {
      const prompt = payload.prompt
      if (typeof prompt !== 'string' || prompt.trim() === '')
        throw new PowerContextError('invalid_request', 'UserPromptSubmit needs a non-blank prompt')
      const scope = this.#scope(payload, ctx)
      const state = this.#session(payload.session_id)
      const given = { session: payload.session_id, event: 'user_prompt_submit' }
      const brief = state.briefed ? undefined : await this.#context(state, given, scope, undefined)
      state.briefed = true
      const query = recallQuery(prompt)
      const recall =
        query.trim() === '' ? undefined : await this.#context(state, given, scope, query, brief)
      return output('UserPromptSubmit', [brief, recall])
    }
    if (event === 'sessionstart') {
      const scope = this.#scope(payload, ctx)
      const state = this.#session(payload.session_id)
      // After a compaction or a clear the context no longer holds what was given: give it again.
      if (payload.source === 'compact' || payload.source === 'clear') state.reset()
      if (state.briefed) return {}
      const given = { session: payload.session_id, event: 'session_start' }
      const brief = await this.#context(state, given, scope, undefined)
      state.briefed = true
      return output('SessionStart', [brief])
    }
    if (event === 'precompact') this.#session(payload.session_id).reset()
    return {}
  }

  /** The scope of the request: the header's override, else the project of `cwd` (loopback only). */
  #scope(payload: Payload, ctx: HookRequestContext): string {
    const override = ctx.scopeHeader?.trim()
    if (override)
      return resolveScope({
        cwd: payload.cwd,
        env: { POWERCONTEXT_CLAUDE_SCOPE_ID: override },
        host: 'claude-code',
      }).scope_id
    if (!ctx.loopback)
      throw new PowerContextError(
        'invalid_request',
        'a client beyond loopback must name its scope in X-PowerContext-Scope',
      )
    if (!isAbsolute(payload.cwd))
      throw new PowerContextError('invalid_request', 'cwd must be an absolute path')
    const now = Date.now()
    const known = this.#scopes.get(payload.cwd)
    if (known !== undefined && now - known.at < SCOPE_TTL_MS) return known.scope
    const scope = resolveScope({ cwd: payload.cwd, env: this.#gitEnv, host: 'claude-code' })
    this.#scopes.delete(payload.cwd)
    this.#scopes.set(payload.cwd, { scope: scope.scope_id, at: now })
    if (this.#scopes.size > MAX_SCOPES) this.#scopes.delete(this.#scopes.keys().next().value ?? '')
    return scope.scope_id
  }

  /** The session's state (most recently used last; the oldest dropped past the bound). */
  #session(id: string): SessionState {
    const state = this.#sessions.get(id) ?? new SessionState(undefined, undefined)
    this.#sessions.delete(id)
    this.#sessions.set(id, state)
    if (this.#sessions.size > MAX_HOOK_SESSIONS)
      this.#sessions.delete(this.#sessions.keys().next().value ?? '')
    return state
  }

  /**
   * A prepared context (the brief without `query`) without what the session holds, recorded as
   * given (and, for a session id the receipts take, with a receipt: docs/agents.md "Receipts");
   * undefined when empty or when the runtime could not answer (the turn goes on without).
   */
  async #context(
    state: SessionState,
    given: { session: string; event: string },
    scope: string,
    query: string | undefined,
    brief?: string,
  ): Promise<string | undefined> {
    const maxBytes = query === undefined ? BRIEF_MAX_BYTES : recallBudget(brief)
    const held = state.excludeRefs()
    const receipt = RECEIPT_SESSION.test(given.session)
      ? { receipt: { host: 'claude-code', session_id: given.session, event: given.event } }
      : {}
    try {
      const answer = await this.#prepare({
        scope_id: scope,
        max_bytes: maxBytes,
        ...(query === undefined ? {} : { query }),
        ...(held.length > 0 ? { exclude_refs: held } : {}),
        ...receipt,
      })
      const content = preparedContent(answer, maxBytes)
      if (content === null) return undefined
      state.addRefs(citationsOf(content))
      return content
    } catch {
      return undefined
    }
  }
}

function output(event: string, blocks: readonly (string | undefined)[]): Output {
  const text = blocks.filter((b) => b !== undefined).join('\n\n')
  return text === ''
    ? {}
    : { hookSpecificOutput: { hookEventName: event, additionalContext: text } }
}
