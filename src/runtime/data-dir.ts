import { join } from 'node:path'

import envPaths from 'env-paths'

/** File name of the embedded database inside the data directory. */
export const DATABASE_FILE = 'powercontext.db'

/**
 * The data directory: an explicit value, else `$POWERCONTEXT_HOME`, else the platform's user data
 * directory (e.g. `~/.local/share/powercontext` on Linux).
 */
export function resolveDataDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== '') return explicit
  const home = env['POWERCONTEXT_HOME']
  if (home !== undefined && home !== '') return home
  return envPaths('powercontext', { suffix: '' }).data
}

/** Path of the embedded SQLite database for a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, DATABASE_FILE)
}

/** File name of the extraction budget's state inside the data directory. */
export const BUDGET_FILE = 'extraction-budget.json'

/** Path of the extraction budget's state for a data directory. */
export function budgetPath(dataDir: string): string {
  return join(dataDir, BUDGET_FILE)
}
