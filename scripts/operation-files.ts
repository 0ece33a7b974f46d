/**
 * Which hand-written files a new memory operation touches, measured instead of counted by hand:
 * for an existing operation of the contract (default `forget`, the model of a small operation with
 * no new column), lists every hand-written source file whose code — comments left out — names it
 * (its operation id and the identifiers built from it, its MCP tool name, its HTTP path). Files
 * written by `npm run contract:generate`, tests and docs are not listed. A new operation shaped
 * like the one named touches about these files.
 *
 * Usage: `npm run ops:files [-- <operationId>]`.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { OPERATIONS } from '../src/contract/operations.js'

/** Where hand-written code lives (tests, docs and the console's styles are not counted). */
const SOURCES =
  /^(?:src|openapi|bin|integrations|clients\/python\/powercontext_client)\/.*\.(?:ts|tsx|mjs|js|py|yaml)$/
/** Output of `npm run contract:generate`: it changes with the contract, by itself. */
const GENERATED = new Set([
  'src/contract/operations.ts',
  'src/contract/client-operations.ts',
  'src/contract/powercontext-types.ts',
  'src/contract/openapi-document.ts',
  'src/contract/error-codes.ts',
  'clients/python/powercontext_client/_generated.py',
])

/** The code of a file without its comments (line and block comments, Python `#` lines). */
export function withoutComments(path: string, text: string): string {
  if (path.endsWith('.py') || path.endsWith('.yaml')) return text.replace(/^\s*#.*$/gm, '')
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\w])\/\/.*$/gm, '$1')
}

/**
 * The names an operation goes by in code: `forget`, `forgetInTx`, `ForgetCommand` / `Result` /
 * `Request` / `Response`, its MCP tool `forget_memory`, its path `/v1/memory/forget`.
 */
export function namesOf(operationId: string): RegExp {
  const op = OPERATIONS.find((o) => o.operationId === operationId)
  if (op === undefined) throw new Error(`no contract operation ${operationId}`)
  const pascal = operationId[0]!.toUpperCase() + operationId.slice(1)
  const words = [operationId, `${operationId}InTx`, `${pascal}(?:Command|Result|Request|Response)`]
  if (op.mcpTool !== null) words.push(op.mcpTool.name)
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  return new RegExp(`(?:\\b(?:${words.join('|')})\\b|${escape(op.path)}\\b)`, 'g')
}

function main(): void {
  const operationId = process.argv[2] ?? 'forget'
  const names = namesOf(operationId)
  const root = fileURLToPath(new URL('..', import.meta.url))
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SOURCES.test(f) && !GENERATED.has(f))
  const rows: string[] = []
  for (const file of files) {
    const code = withoutComments(file, readFileSync(`${root}${file}`, 'utf8'))
    const found = [...new Set(code.match(names) ?? [])]
    if (found.length > 0) rows.push(`${file}  (${found.slice(0, 4).join(', ')})`)
  }
  process.stdout.write(
    `Hand-written files whose code names \`${operationId}\` (generated files, tests, docs left out):\n` +
      `${rows.map((r) => `  ${r}`).join('\n')}\n${rows.length} files\n`,
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
