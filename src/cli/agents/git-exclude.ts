/**
 * `setup` at project level writes files that hold this machine's paths (hook commands, the MCP
 * headers helper); they are listed in the repository's `.git/info/exclude` (never the shared
 * `.gitignore`) so they are not committed by accident and never show as changes of a turn.
 */
import { isAbsolute, join, relative, sep } from 'node:path'

import { git } from '../git-reader.js'
import type { FoundFile } from './config-files.js'
import { readConfigFile } from './config-files.js'

const HEADER = '# powercontext setup: files holding this machine’s paths'

/**
 * The exclude file of the repository holding `dir` and its new text listing `paths` (anchored,
 * relative to the work tree, with their backups), or undefined outside Git; `text` is null when every path is
 * already listed.
 */
export async function gitExcludeChange(
  dir: string,
  paths: readonly string[],
): Promise<{ file: FoundFile; text: string | null; added: string[] } | undefined> {
  let top: string
  let excludePath: string
  try {
    top = (await git(dir, ['rev-parse', '--show-toplevel'])).trim()
    const p = (await git(dir, ['rev-parse', '--git-path', 'info/exclude'])).trim()
    excludePath = isAbsolute(p) ? p : join(dir, p)
  } catch {
    return undefined // not a Git work tree: nothing to exclude from
  }
  const file = await readConfigFile(excludePath)
  const current = file.text ?? ''
  const listed = new Set(current.split('\n').map((l) => l.trim()))
  const added = paths
    .map((p) => relative(top, p))
    .filter((rel) => rel !== '' && !rel.startsWith('..') && !isAbsolute(rel))
    .map((rel) => `/${rel.split(sep).join('/')}`)
    .flatMap((line) => [line, `${line}.powercontext-backup-*`]) // backups hold the same paths
    .filter((line) => !listed.has(line))
  if (added.length === 0) return { file, text: null, added }
  const head = current === '' || current.endsWith('\n') ? current : `${current}\n`
  const block = listed.has(HEADER) ? added : [HEADER, ...added]
  return { file, text: `${head}${block.join('\n')}\n`, added }
}
