// The agent hosts the hook scripts serve, one row each: what the host's payloads call a session
// and a turn, the names our captures carry, and the environment variables it reads. The hook
// program of `integrations/<host>/hooks/` runs its row; the shared code (settings, scope, events)
// reads a host's facts here and nowhere else. `setup` and `doctor` (src/cli/agents/hosts/) read
// the same rows. Plain data, no imports: the hooks load it before anything else.

/**
 * One host's row.
 * @typedef {{host: string, component: string, origin: string, displayName: string,
 *   promptSourcePrefix: string, sessionKeys: string[], turnKeys: string[], turnMetaKey: string,
 *   serverUrlEnv: string[], scopeEnv: string[], events?: Partial<Record<HookEvent, string>>,
 *   replyKeys?: string[]}}
 *   HostProfile
 */
/** @typedef {'SessionStart' | 'UserPromptSubmit' | 'Stop' | 'PreCompact'} HookEvent */

/** Env names of the explicit scope override when no host is named. */
export const DEFAULT_SCOPE_ENV = ['POWERCONTEXT_SCOPE_ID']
/** Env names of the server URL when no host is named. */
export const DEFAULT_SERVER_URL_ENV = ['POWERCONTEXT_CLIENT_SERVER_URL']

/** @type {Readonly<Record<string, HostProfile>>} */
export const HOST_PROFILES = {
  'claude-code': {
    host: 'claude-code',
    component: 'powercontext.claude_code',
    origin: 'claude-code',
    displayName: 'Claude Code',
    promptSourcePrefix: 'claude-code-user-prompt:',
    sessionKeys: ['session_id'],
    turnKeys: ['prompt_id', 'request_id'],
    turnMetaKey: 'prompt_id',
    // First set variable wins; the plugin's own option comes after the generic name.
    serverUrlEnv: ['POWERCONTEXT_CLIENT_SERVER_URL', 'CLAUDE_PLUGIN_OPTION_SERVER_URL'],
    // First set variable wins; the host's own name comes before the generic one.
    scopeEnv: ['POWERCONTEXT_CLAUDE_SCOPE_ID', 'POWERCONTEXT_SCOPE_ID'],
  },
  codex: {
    host: 'codex',
    component: 'powercontext.codex',
    origin: 'codex',
    displayName: 'Codex',
    promptSourcePrefix: 'codex-user-prompt:',
    sessionKeys: ['session_id', 'conversation_id', 'thread_id'],
    turnKeys: ['turn_id', 'request_id'],
    turnMetaKey: 'turn_id',
    serverUrlEnv: ['POWERCONTEXT_CLIENT_SERVER_URL'],
    scopeEnv: ['POWERCONTEXT_CODEX_SCOPE_ID', 'POWERCONTEXT_SCOPE_ID'],
  },
}

/**
 * The host's name of one of our events (`events`; a host without it uses ours), which its hook
 * output names.
 * @param {HostProfile} profile
 * @param {HookEvent} event
 * @returns {string}
 */
export const hostEventName = (profile, event) => profile.events?.[event] ?? event

/**
 * Our event of a host's event name (a name the host's `events` does not list is taken as ours).
 * @param {HostProfile} profile
 * @param {unknown} name the payload's `hook_event_name`
 * @returns {unknown}
 */
export function ourEventName(profile, name) {
  const found = Object.entries(profile.events ?? {}).find(([, theirs]) => theirs === name)
  return found === undefined ? name : found[0]
}

/**
 * The row of `host`.
 * @param {string} host
 * @returns {HostProfile}
 * @throws {Error} for a host without a row (a broken plugin)
 */
export function hostProfile(host) {
  const profile = HOST_PROFILES[host]
  if (profile === undefined) throw new Error(`no host profile for ${host}`)
  return profile
}
