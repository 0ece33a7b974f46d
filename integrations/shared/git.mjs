// `git` for hooks: no shell, stdout only, a timeout; any failure (no git, not a repository,
// a non-zero exit) is `undefined`.
import { spawnSync } from 'node:child_process'

/**
 * @param {string} cwd
 * @param {Record<string, string | undefined>} env
 * @param {string[]} args
 * @param {number} [timeoutMs] default 2000 (the reference's)
 * @returns {string | undefined} raw stdout
 */
export function gitOutput(cwd, env, args, timeoutMs = 2000) {
  const run = spawnSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  if (run.error !== undefined || run.status !== 0) return undefined
  return run.stdout
}
