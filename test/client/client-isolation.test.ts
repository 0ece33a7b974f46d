/**
 * `powercontext/client` depends only on the generated contract and openapi-fetch.
 * Checked twice: statically over the source import graph, and at run time in a fresh Node process
 * that records every module the loader resolves and every native addon it opens.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CLIENT_DIR = join(ROOT, 'src/client')
const CONTRACT_DIR = join(ROOT, 'src/contract')
/** Packages the client may import at run time. */
const ALLOWED_PACKAGES = new Set(['openapi-fetch'])

/**
 * Runs in a fresh process: a resolve hook (module.register) records every resolved URL, a
 * `process.dlopen` trap records native addons, then the target is imported and the CommonJS
 * cache listed. Prints `{resolved, dlopened, cjs}` as JSON.
 */
const PROBE = `
import { register, createRequire } from 'node:module'
import { readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
const log = join(mkdtempSync(join(tmpdir(), 'pc-probe-')), 'resolved.txt')
const hooks = \`
import { appendFileSync } from 'node:fs'
let file
export function initialize(data) { file = data.file }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(file, result.url + '\\\\n')
  return result
}\`
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { file: log } })
const dlopened = []
const dlopen = process.dlopen
process.dlopen = function (module, filename, ...rest) {
  dlopened.push(filename)
  return dlopen.call(this, module, filename, ...rest)
}
await import(process.env.PC_PROBE_TARGET)
let resolved = []
try { resolved = readFileSync(log, 'utf8').split('\\n').filter(Boolean) } catch {}
const cjs = Object.keys(createRequire(join(process.cwd(), 'x.js')).cache)
process.stdout.write(JSON.stringify({ resolved, dlopened, cjs }))
`

interface ProbeResult {
  readonly resolved: string[]
  readonly dlopened: string[]
  readonly cjs: string[]
}

function probe(target: string): ProbeResult {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], {
    cwd: ROOT,
    env: { ...process.env, PC_PROBE_TARGET: target },
    encoding: 'utf8',
  })
  return JSON.parse(out) as ProbeResult
}

const FORBIDDEN = [
  /node_modules\/better-sqlite3\//,
  /node_modules\/mysql2\//,
  /node_modules\/sqlite-vec/,
  /\/dist\/(storage|runtime|http|cli|mcp|core|wire)\//,
  /\.node$/,
]
const forbiddenIn = (list: readonly string[]): string[] =>
  list.filter((entry) => FORBIDDEN.some((re) => re.test(entry)))

describe('powercontext/client loads no storage code and no native module', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist/client/index.js')))
      throw new Error('dist/ is missing: run npm run build first')
  })

  it('imports through the package subpath without resolving a driver', () => {
    const r = probe('powercontext/client')
    expect(r.resolved.some((u) => u.endsWith('/dist/client/index.js'))).toBe(true)
    expect(r.resolved.some((u) => u.includes('/node_modules/openapi-fetch/'))).toBe(true)
    expect(forbiddenIn(r.resolved)).toEqual([])
    expect(forbiddenIn(r.cjs)).toEqual([])
    expect(r.dlopened).toEqual([])
  })

  it('the probe does see a driver when one is loaded (control: the root entry)', () => {
    const r = probe('powercontext')
    expect(r.resolved.some((u) => /node_modules\/better-sqlite3\//.test(u))).toBe(true)
    expect(r.cjs.some((f) => /node_modules\/better-sqlite3\//.test(f))).toBe(true)
  })
})

/** Every `import … from` / `export … from` / `import()` specifier of a TypeScript source. */
function specifiers(source: string): string[] {
  const found: string[] = []
  const re =
    /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm
  for (const m of source.matchAll(re)) found.push(m[1] ?? m[2] ?? m[3] ?? '')
  return found
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsFiles(join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [join(dir, e.name)]
        : [],
  )
}

const inside = (file: string, dir: string): boolean => !relative(dir, file).startsWith('..')

describe('src/client import graph', () => {
  it('reaches only src/client, src/contract and allowed packages', () => {
    const problems: string[] = []
    const seen = new Set<string>()
    const queue = tsFiles(CLIENT_DIR)
    expect(queue.length).toBeGreaterThan(0)
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      if (seen.has(file)) continue
      seen.add(file)
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        const from = relative(ROOT, file)
        if (!spec.startsWith('.')) {
          if (!ALLOWED_PACKAGES.has(spec)) problems.push(`${from} imports package ${spec}`)
          continue
        }
        const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts')
        if (!inside(target, CLIENT_DIR) && !inside(target, CONTRACT_DIR))
          problems.push(`${from} imports ${relative(ROOT, target)}`)
        else if (existsSync(target)) queue.push(target)
        else problems.push(`${from} imports missing ${relative(ROOT, target)}`)
      }
    }
    expect(problems).toEqual([])
    expect([...seen].some((f) => inside(f, CONTRACT_DIR))).toBe(true)
  })

  it('the scanner finds the imports it must reject', () => {
    const sample = [
      "import { x } from '../storage/sqlite/index.js'",
      "import type { Y } from '../runtime/memory-runtime.js'",
      "export { z } from 'better-sqlite3'",
      "const m = await import('mysql2/promise')",
      "import 'node:fs'",
    ].join('\n')
    expect(specifiers(sample)).toEqual([
      '../storage/sqlite/index.js',
      '../runtime/memory-runtime.js',
      'better-sqlite3',
      'mysql2/promise',
      'node:fs',
    ])
  })
})
