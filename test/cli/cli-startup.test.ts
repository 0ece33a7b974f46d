/**
 * What the built CLI loads: `--version`, `--help` and every command run with
 * `--server-url` load no database driver and no server framework. Each run is a child process of
 * the built binary with a module hook (node:module `register`) that records every resolved module;
 * a local command is run the same way to show that the record does see a driver when one loads.
 * Start-up time is measured by `npm run bench:cli`, not here.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { initializeRequest } from '../../harness/mcp-messages.js'
import { type RunningServer, startServer } from '../../src/http/server-run.js'

const BIN = fileURLToPath(new URL('../../bin/powercontext.js', import.meta.url))
const SCOPE = 'cli:startup'
const root = mkdtempSync(join(tmpdir(), 'pc-cli-startup-'))
const HOOKS = join(root, 'hooks.mjs')
const REGISTER = join(root, 'register.mjs')
let server: RunningServer
let runs = 0

/** Modules no remote or informational command may load: drivers, native addons, servers. */
const HEAVY = [
  /\/node_modules\/better-sqlite3\//,
  /\/node_modules\/sqlite-vec/,
  /\/node_modules\/hnswlib-node\//,
  /\/node_modules\/mysql2\//,
  /\/node_modules\/fastify\//,
  /\/node_modules\/@fastify\//,
  /\/node_modules\/pino\//,
  /\/node_modules\/(@hono\/node-server|hono)\//,
  // secretlint's provider rules: the server's write checks and `git capture` load them.
  /\/node_modules\/@secretlint\//,
  /\/dist\/storage\/(sqlite|mysql|engine|sql)\//,
  /\/dist\/runtime\/memory-runtime\.js$/,
  /\/dist\/http\//,
]
/** The MCP SDK as well (the stdio proxy is a forwarder on Node built-ins). */
const MCP_SDK = /\/node_modules\/@modelcontextprotocol\/sdk\//

beforeAll(async () => {
  writeFileSync(
    HOOKS,
    [
      "import { appendFileSync } from 'node:fs'",
      'export async function resolve(specifier, context, next) {',
      '  const resolved = await next(specifier, context)',
      "  appendFileSync(process.env.PC_TRACE_FILE, resolved.url + '\\n')",
      '  return resolved',
      '}',
    ].join('\n'),
  )
  writeFileSync(
    REGISTER,
    `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(HOOKS).href)})\n`,
  )
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(root, 'server'),
    logLevel: 'silent',
  })
})

afterAll(async () => {
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

interface Run {
  readonly code: number | null
  readonly out: string
  readonly err: string
  readonly modules: readonly string[]
}

/** Runs the built binary with `args` (and `input` on stdin); what it printed and loaded. */
function traced(args: readonly string[], input = ''): Promise<Run> {
  runs += 1
  const trace = join(root, `trace-${runs}.txt`)
  writeFileSync(trace, '')
  const child = spawn(process.execPath, ['--import', REGISTER, BIN, ...args], {
    env: {
      ...process.env,
      PC_TRACE_FILE: trace,
      POWERCONTEXT_CLIENT_SERVER_URL: '',
      POWERCONTEXT_CLIENT_API_TOKEN: '',
      POWERCONTEXT_HOME: join(root, 'home'),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  child.stdin.end(input)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      const modules = readFileSync(trace, 'utf8').split('\n').filter(Boolean)
      resolve({ code, out, err, modules })
    })
  })
}

const heavy = (r: Run): string[] =>
  r.modules.filter((m) => HEAVY.some((re) => re.test(m)) || MCP_SDK.test(m))

describe('CLI start-up loads only what the command needs', () => {
  it('the record sees a driver when a local command opens the data directory', async () => {
    const r = await traced(['--data-dir', join(root, 'local'), 'list', '--scope', SCOPE])
    expect(r.code, r.err).toBe(0)
    expect(r.modules.some((m) => m.includes('/node_modules/better-sqlite3/'))).toBe(true)
    expect(r.modules.some((m) => m.endsWith('/dist/runtime/memory-runtime.js'))).toBe(true)
  })

  it('--version and --help load no driver, server framework or MCP SDK', async () => {
    for (const args of [['--version'], ['--help'], ['search', '--help'], ['admin', '--help']]) {
      const r = await traced(args)
      expect(r.code, args.join(' ')).toBe(0)
      expect(r.out, args.join(' ')).not.toBe('')
      expect(heavy(r), args.join(' ')).toEqual([])
    }
  })

  it('every --server-url command loads no driver, server framework or MCP SDK', async () => {
    const remote = ['--server-url', server.url, '--json']
    const run = async (...args: string[]): Promise<Run> => {
      const r = await traced([...remote, ...args])
      expect(heavy(r), args[0]).toEqual([])
      expect(r.code, `${args[0]}: ${r.err}`).toBe(0)
      return r
    }
    const remember = async (text: string): Promise<string> => {
      const r = await run('remember', '--scope', SCOPE, text)
      const body = JSON.parse(r.out) as {
        results: { memory: { memory_ref: { artifact_id: string } } }[]
      }
      return body.results[0]!.memory.memory_ref.artifact_id
    }
    const a = await remember('startup alpha fact')
    const b = await remember('startup beta fact')
    await run('search', '--scope', SCOPE, 'startup')
    await run('get', '--scope', SCOPE, a)
    await run('history', '--scope', SCOPE, a)
    await run('list', '--scope', SCOPE)
    await run('update', '--scope', SCOPE, a, '--revision', '1', '--text', 'startup alpha, updated')
    await run('changes', '--scope', SCOPE)
    await run('scopes')
    await run('forget', '--scope', SCOPE, b)
    await run('restore', '--scope', SCOPE, b)
    await run('merge', '--scope', SCOPE, '--text', 'startup merged', `${a}@2`, `${b}@1`)
    await run('restore', '--scope', SCOPE, '--preview', a)
    await run('context', '--scope', SCOPE, 'startup')
    await run('capture', '--scope', SCOPE, 'some', 'chatter')
    await run('flush', '--scope', SCOPE)
    await run('flush-records', '--scope', SCOPE)
    const doctor = await traced(['doctor', '--server-url', server.url])
    expect(heavy(doctor)).toEqual([])
  })

  it('mcp --server-url loads no driver, server framework, MCP SDK, zod or the rest of the CLI', async () => {
    const initialize = initializeRequest('startup-test')
    const r = await traced(['mcp', '--server-url', server.url], `${JSON.stringify(initialize)}\n`)
    expect(r.out).toContain('"serverInfo"')
    expect(heavy(r)).toEqual([])
    expect(r.modules.filter((m) => m.includes('/node_modules/zod/'))).toEqual([])
    // The fast path of bin/powercontext.js: no command-line parser, no client, no other command.
    const files = r.modules.filter((m) => m.startsWith('file:'))
    expect(files.filter((m) => /\/node_modules\/|\/dist\/(cli\/main|client\/)/.test(m))).toEqual([])
    expect(files.some((m) => m.endsWith('/dist/mcp/stdio-proxy.js'))).toBe(true)
    expect(files.length).toBeLessThan(20)
  })
})
