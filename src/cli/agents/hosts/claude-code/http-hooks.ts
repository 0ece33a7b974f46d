/**
 * The http form of Claude Code's hooks: when the server is on this machine (a loopback URL),
 * `setup` makes `UserPromptSubmit` a hook of `type: "http"` that Claude Code posts to the
 * server's `/v1/hooks/claude-code` route (no Node process per prompt); the other events stay
 * command hooks, told by `POWERCONTEXT_HOOKS_FORM=http` that the server keeps the session's
 * state and that Stop captures the prompt. The token and the scope override travel as headers
 * filled from Claude Code's environment (`allowedEnvVars`), never written to the file.
 */
import { hostProfile } from '../../../../../integrations/shared/hosts.mjs'
import { CLAUDE_HOOK_ROUTE } from '../../claude-hook-route.js'
import type { HookGroup, HookHandler, HookTable } from '../../hook-merge.js'
import { TOKEN_ENV } from '../../mcp-entries.js'

/** Seconds Claude Code waits for the route (brief and recall in one request); then it goes on. */
export const HTTP_HOOK_TIMEOUT_S = 1
/** Claude Code's scope override for the hooks, sent as `X-PowerContext-Scope` (empty when unset). */
const SCOPE_ENV = hostProfile('claude-code').scopeEnv[0] as string
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/iu

/** Whether the server at `serverUrl` runs on this machine (the condition of the http form). */
export function isLoopbackUrl(serverUrl: string): boolean {
  try {
    const url = new URL(serverUrl)
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_HOST.test(url.hostname)
    )
  } catch {
    return false
  }
}

/** The http handler of `UserPromptSubmit` for the server at `serverUrl`. */
export function httpPromptHook(serverUrl: string, withToken: boolean): HookHandler {
  const base = serverUrl.replace(/\/+$/u, '').replace(/\/mcp$/u, '')
  return {
    type: 'http',
    url: `${base}${CLAUDE_HOOK_ROUTE}`,
    headers: {
      ...(withToken ? { Authorization: `Bearer $${TOKEN_ENV}` } : {}),
      'X-PowerContext-Scope': `$${SCOPE_ENV}`,
    },
    allowedEnvVars: withToken ? [TOKEN_ENV, SCOPE_ENV] : [SCOPE_ENV],
    timeout: HTTP_HOOK_TIMEOUT_S,
  }
}

/** `table` with its `UserPromptSubmit` groups replaced by the http hook. */
export function withHttpPrompt(table: HookTable, serverUrl: string, withToken: boolean): HookTable {
  const group: HookGroup = { hooks: [httpPromptHook(serverUrl, withToken)] }
  return { ...table, UserPromptSubmit: [group] }
}
