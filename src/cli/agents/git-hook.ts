/**
 * `setup --git-hook`: runs `powercontext capture git` after each commit from the repository's
 * `post-commit` hook (in `core.hooksPath` when set). Our lines sit between two marker comments;
 * an existing shell hook keeps its own lines (ours are appended), a hook in another language is
 * left alone and reported. The capture runs in the background with its output discarded, so a
 * commit never waits for it or fails because of it.
 */
import { isAbsolute, join } from 'node:path'

import { PowerContextError } from '../../core/errors.js'
import { git } from '../git-reader.js'
import { CLI_BIN, shellWord } from './agent-hosts.js'
import type { FoundFile } from './config-files.js'

export const GIT_HOOK_BEGIN = '# >>> powercontext capture git >>>'
export const GIT_HOOK_END = '# <<< powercontext capture git <<<'

/** The `post-commit` file of the repository holding `dir`. */
export async function postCommitPath(dir: string): Promise<string> {
  const hooks = (await git(dir, ['rev-parse', '--git-path', 'hooks'])).trim()
  const root = (await git(dir, ['rev-parse', '--show-toplevel'])).trim()
  return join(isAbsolute(hooks) ? hooks : join(root, hooks), 'post-commit')
}

/** Our lines: capture into `serverUrl`, in the background, silent. */
export function gitHookBlock(serverUrl: string, nodePath: string = process.execPath): string {
  const cmd = [shellWord(nodePath), shellWord(CLI_BIN), 'capture', 'git']
  return [
    GIT_HOOK_BEGIN,
    `${cmd.join(' ')} --repo "$(git rev-parse --show-toplevel)" --server-url ${shellWord(serverUrl)} >/dev/null 2>&1 &`,
    GIT_HOOK_END,
  ].join('\n')
}

/**
 * The hook's new text with our block in it, or null when it already holds exactly this block.
 * @throws PowerContextError `invalid_request` when the hook is not a POSIX shell script.
 */
export function mergeGitHook(file: FoundFile, block: string): string | null {
  const text = file.text ?? ''
  if (text.trim() === '') return `#!/bin/sh\n${block}\n`
  const begin = text.indexOf(GIT_HOOK_BEGIN)
  const end = text.indexOf(GIT_HOOK_END)
  if (begin !== -1 && end > begin) {
    const next = `${text.slice(0, begin)}${block}${text.slice(end + GIT_HOOK_END.length)}`
    return next === text ? null : next
  }
  const shebang = text.startsWith('#!') ? (text.split('\n')[0] ?? '') : '#!/bin/sh'
  if (!/\b(?:sh|bash|dash|zsh|ksh)\b/.test(shebang))
    throw new PowerContextError(
      'invalid_request',
      `${file.path} is not a shell script (${shebang}); add this line to it yourself: ${block.split('\n')[1]}`,
      { errors: [{ field: 'git_hook', message: 'not a shell script' }] },
    )
  // A hook that ends with `exit …` gets our lines before that line, so they still run.
  const lines = text.replace(/\n+$/, '').split('\n')
  const last = lines.at(-1) ?? ''
  if (/^\s*exit\b/.test(last)) return [...lines.slice(0, -1), block, last, ''].join('\n')
  return `${text}${text.endsWith('\n') ? '' : '\n'}${block}\n`
}
