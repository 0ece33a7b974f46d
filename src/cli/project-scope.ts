import type { Command } from 'commander'

import { resolveScope } from '../../integrations/shared/scope.mjs'

/**
 * The project scope of a directory, resolved exactly as the agent hooks resolve it
 * (`integrations/shared/scope.mjs`: env override → Git-private binding → `git:<host>/<path>` →
 * `local:<sha256>`), so that the CLI, `capture git` and the hooks of a checkout use one scope.
 */
export function projectScope(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolveScope({ cwd: dir, env }).scope_id
}

/** Help of every `--scope` option. */
export const SCOPE_OPTION_HELP =
  "scope id (default: the working directory's project scope, as the agent hooks pick it)"

/**
 * A `preAction` hook: a command with a `--scope` option that was not given runs in the working
 * directory's project scope ({@link projectScope}). `capture git` resolves its `--repo` instead.
 */
export function defaultScope(_program: Command, action: Command): void {
  const scoped = action.options.some((o) => o.long === '--scope')
  if (scoped && action.getOptionValue('scope') === undefined)
    action.setOptionValue('scope', projectScope(process.cwd()))
}
