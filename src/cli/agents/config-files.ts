/**
 * Reading and writing a host's settings files for `setup`: a file that does not parse is
 * reported and never overwritten; a changed file is written whole (temporary file, then renamed
 * over, its mode kept) after a copy of the old one is kept beside it; `--dry-run` writes nothing.
 */
import { copyFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'

import { PowerContextError } from '../../core/errors.js'

/** A settings file as found: its text, or null when it does not exist. */
export interface FoundFile {
  readonly path: string
  readonly text: string | null
}

/** Reads a file; a missing file is `text: null`. */
export async function readConfigFile(path: string): Promise<FoundFile> {
  try {
    return { path, text: await readFile(path, 'utf8') }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, text: null }
    throw err
  }
}

/** The refusal to touch a file that does not parse. */
export function unreadableFile(path: string, why: string): PowerContextError {
  return new PowerContextError(
    'invalid_request',
    `${path} cannot be read as settings (${why}); fix or move it — nothing was written`,
    { errors: [{ field: 'settings', message: why }] },
  )
}

/** Parses a JSON settings file that must hold an object (a missing or empty file is `{}`). */
export function parseJsonSettings(file: FoundFile): Record<string, unknown> {
  if (file.text === null || file.text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(file.text)
  } catch (err) {
    throw unreadableFile(file.path, (err as Error).message)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw unreadableFile(file.path, 'not a JSON object')
  return value as Record<string, unknown>
}

/** Two-space JSON with a final newline, as Claude Code and Codex write theirs. */
export const jsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`

const stamp = (d: Date): string =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/**
 * Writes `text` over `file`, keeping the old content as `<path>.powercontext-backup-<time>`.
 * Returns the backup's path (null for a new file).
 */
export async function writeConfigFile(
  file: FoundFile,
  text: string,
  now: Date = new Date(),
): Promise<string | null> {
  await mkdir(dirname(file.path), { recursive: true })
  let backup: string | null = null
  let mode = 0o644
  if (file.text !== null) {
    backup = `${file.path}.powercontext-backup-${stamp(now)}`
    await copyFile(file.path, backup)
    mode = (await stat(file.path)).mode & 0o7777
  }
  const tmp = `${file.path}.${process.pid}.tmp`
  await writeFile(tmp, text, { mode })
  await rename(tmp, file.path)
  return backup
}
