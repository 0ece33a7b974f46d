/**
 * How `setup`, `doctor` and the hook merge tell our http hook apart: a handler posting to the
 * server's hook route (the http form of Claude Code's hooks, `hosts/claude-code/http-hooks.ts`).
 */

import { OPERATIONS } from '../../contract/operations.js'

/** The server's route for Claude Code's http hooks (`claudeCodeHook` of the contract). */
export const CLAUDE_HOOK_ROUTE = OPERATIONS.find((op) => op.operationId === 'claudeCodeHook')!.path

/** True for a handler that posts to our route (a hook `setup` wrote in the http form). */
export function isOurHttpHook(h: Readonly<Record<string, unknown>>): boolean {
  if (h['type'] !== 'http' || typeof h['url'] !== 'string') return false
  try {
    return new URL(h['url']).pathname.replace(/\/+$/u, '').endsWith(CLAUDE_HOOK_ROUTE)
  } catch {
    return false
  }
}
