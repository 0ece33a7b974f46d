/**
 * The server settings file: `<data dir>/server-settings.json`, a JSON object whose keys are the
 * `POWERCONTEXT_SERVER_*` environment variables without that prefix, in lower case
 * (`{"extract_with": "claude-code", "extract_calls_per_day": 120}`). `server run` reads it after
 * its flags and the environment (flags > environment > file); `powercontext setup` writes it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

import { CliUsageError } from './cli-io.js'

/** File name of the server settings inside the data directory. */
export const SERVER_SETTINGS_FILE = 'server-settings.json'

const PREFIX = 'POWERCONTEXT_SERVER_'
const KEY = /^[a-z][a-z0-9_]*$/

/** Path of the settings file of a data directory. */
export const serverSettingsPath = (dataDir: string): string => join(dataDir, SERVER_SETTINGS_FILE)

/**
 * The file's settings as `POWERCONTEXT_SERVER_*` names → string values; {} when there is no file.
 * @throws CliUsageError when the file is not a JSON object of scalar values.
 */
export function readServerSettingsFile(dataDir: string): Record<string, string> {
  const path = serverSettingsPath(dataDir)
  if (!existsSync(path)) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new CliUsageError(`${path} is not JSON: ${(err as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CliUsageError(`${path} must hold a JSON object`)
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(parsed)) {
    if (!KEY.test(key)) throw new CliUsageError(`${path}: ${key} is not a setting name`)
    if (!['string', 'number', 'boolean'].includes(typeof value))
      throw new CliUsageError(`${path}: ${key} must be a string, number or boolean`)
    out[`${PREFIX}${key.toUpperCase()}`] = String(value)
  }
  return out
}

/** Fills every environment variable the file sets and the environment does not (env wins). */
export function applyServerSettingsFile(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  for (const [name, value] of Object.entries(readServerSettingsFile(dataDir))) {
    if (env[name] === undefined || env[name] === '') env[name] = value
  }
}

/** Merges settings into the file (keys in lower case, without the prefix); null removes one. */
export async function updateServerSettingsFile(
  dataDir: string,
  settings: Readonly<Record<string, string | number | boolean | null>>,
): Promise<string> {
  const path = serverSettingsPath(dataDir)
  readServerSettingsFile(dataDir) // refuses a malformed file rather than overwrite it
  const current: Record<string, unknown> = existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)
    : {}
  for (const [key, value] of Object.entries(settings)) {
    if (value === null) delete current[key]
    else current[key] = value
  }
  await mkdir(dataDir, { recursive: true })
  await writeFile(`${path}.tmp`, `${JSON.stringify(current, null, 2)}\n`)
  await rename(`${path}.tmp`, path)
  return path
}
