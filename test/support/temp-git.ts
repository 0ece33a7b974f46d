import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Temporary directories of a test file: `make()` one, `removeAll()` in `afterAll`. */
export function tempDirs(prefix: string): { make: () => string; removeAll: () => void } {
  const dirs: string[] = []
  return {
    make: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix))
      dirs.push(dir)
      return dir
    },
    removeAll: () => {
      // Retried: a detached hook worker may still be writing in one of them.
      for (const dir of dirs.splice(0))
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 })
    },
  }
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
}

/** Runs `git -C repo ARGS…` with a fixed identity; returns its trimmed stdout. */
export const git = (repo: string, ...args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim()
