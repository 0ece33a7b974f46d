import { join } from 'node:path'

import { vi } from 'vitest'

/**
 * Makes `home` the HOME of an in-process `setup` run (call it in `beforeEach`, undo with
 * `vi.unstubAllEnvs()`): no CODEX_HOME, server URL, token or scope override of the machine, and
 * a Codex binary that does not exist (Codex's own trust step is covered with the real Codex in
 * test/hosts/codex.test.ts). Returns `home`.
 */
export function stubSetupHome(home: string): string {
  vi.stubEnv('HOME', home)
  vi.stubEnv('CODEX_HOME', '')
  vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', '')
  vi.stubEnv('POWERCONTEXT_CLIENT_API_TOKEN', '')
  vi.stubEnv('POWERCONTEXT_SCOPE_ID', '')
  vi.stubEnv('POWERCONTEXT_CODEX_BIN', join(home, 'no-codex-here'))
  return home
}
