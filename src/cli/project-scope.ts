import { resolveScope } from '../../integrations/shared/scope.mjs'

/**
 * The project scope of a directory, resolved exactly as the agent hooks resolve it
 * (`integrations/shared/scope.mjs`: env override → Git-private binding → `git:<host>/<path>` →
 * `local:<sha256>`), so that `capture git` and the hooks of a checkout write to one scope.
 */
export function projectScope(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolveScope({ cwd: dir, env }).scope_id
}
