/**
 * `powercontext doctor claude-code|codex` against real servers on loopback (one open, one with a
 * token, a closed port), on a temporary HOME and project: all checks pass after `setup`; server
 * down, 401, hooks missing, a hook file gone and an MCP entry for another server each fail with
 * one line that says what to do.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'

import { resolveScope } from '../../integrations/shared/scope.mjs'
import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { runCli as cli } from '../support/cli-run.js'
import { git, tempDirs } from '../support/temp-git.js'

const temp = tempDirs('pc-cli-doctor-')
const TOKEN = 'doctor-token-1234'
let open: RunningServer
let locked: RunningServer
let closedUrl = ''
beforeAll(async () => {
  open = await startServer({ host: '127.0.0.1', port: 0, dataDir: temp.make(), logLevel: 'silent' })
  locked = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: temp.make(),
    logLevel: 'silent',
    authToken: TOKEN,
  })
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`
  await new Promise((r) => probe.close(r))
})
afterAll(async () => {
  await open?.stop()
  await locked?.stop()
  temp.removeAll()
})
let project = ''
beforeEach(() => {
  vi.stubEnv('HOME', temp.make())
  vi.stubEnv('CODEX_HOME', '')
  vi.stubEnv('POWERCONTEXT_CLIENT_SERVER_URL', '')
  vi.stubEnv('POWERCONTEXT_CLIENT_API_TOKEN', '')
  vi.stubEnv('POWERCONTEXT_SCOPE_ID', '')
  // Codex's own view (hook-trust) is checked with the real Codex in test/hosts/codex.test.ts.
  vi.stubEnv('POWERCONTEXT_CODEX_BIN', '/nonexistent/codex')
  project = temp.make()
  git(project, 'init', '-q')
  git(project, 'remote', 'add', 'origin', 'https://github.com/acme/doctor.git')
  return () => vi.unstubAllEnvs()
})

const lines = (out: string): string[] => out.trimEnd().split('\n')
const line = (out: string, name: string): string =>
  lines(out).find((l) => l.slice(5).startsWith(`${name}:`)) ?? `(no ${name} line)`

describe('doctor claude-code', () => {
  it('passes every check after setup, against the server the MCP entry names', async () => {
    const setup = await cli('--server-url', open.url, 'setup', 'claude-code', '--project', project)
    expect(setup.code).toBe(0)
    const r = await cli('doctor', 'claude-code', '--project', project)
    expect(r.err).toBe('')
    expect(lines(r.out).map((l) => l.slice(0, 4))).toEqual(Array(10).fill('ok  '))
    expect(line(r.out, 'skill')).toBe(
      `ok   skill: project-memory in ${join(project, '.claude', 'skills', 'project-memory', 'SKILL.md')}`,
    )
    expect(line(r.out, 'mcp')).toMatch(new RegExp(`^ok   mcp: ${open.url}/mcp lists \\d+ tools$`))
    expect(line(r.out, 'hooks')).toContain('SessionStart, UserPromptSubmit, Stop, PreCompact in')
    expect(line(r.out, 'scope')).toBe(
      `ok   scope: ${project} is scope ${resolveScope({ cwd: project, env: {} }).scope_id}`,
    )
    expect(r.code).toBe(0)
    const json = await cli('--json', 'doctor', 'claude-code', '--project', project)
    expect(JSON.parse(json.out)).toMatchObject({
      host: 'claude-code',
      server_url: open.url,
      ok: true,
    })
  })

  it('server down: one line naming the URL, MCP skipped', async () => {
    await cli('--server-url', closedUrl, 'setup', 'claude-code', '--project', project)
    const r = await cli('doctor', 'claude-code', '--project', project)
    expect(r.code).toBe(1)
    expect(line(r.out, 'live')).toMatch(
      new RegExp(
        `^FAIL live: server not reachable at ${closedUrl} \\(.*\\); is \`powercontext server run\` running there\\?$`,
      ),
    )
    expect(line(r.out, 'mcp')).toBe('skip mcp: skipped: the liveness check failed')
    expect(line(r.out, 'hooks').startsWith('ok  ')).toBe(true)
  })

  it('401: auth and MCP say to set the token', async () => {
    await cli('--server-url', locked.url, 'setup', 'claude-code', '--project', project)
    const r = await cli('doctor', 'claude-code', '--project', project)
    expect(r.code).toBe(1)
    expect(line(r.out, 'auth')).toBe(
      'FAIL auth: auth rejected: the server requires a token; set POWERCONTEXT_CLIENT_API_TOKEN (or pass --token)',
    )
    expect(line(r.out, 'mcp')).toBe(
      `FAIL mcp: ${locked.url}/mcp rejected the token (401); set POWERCONTEXT_CLIENT_API_TOKEN to the server token`,
    )
    const ok = await cli('--token', TOKEN, 'doctor', 'claude-code', '--project', project)
    expect(line(ok.out, 'mcp').startsWith('ok   mcp:')).toBe(true)
    expect(ok.code).toBe(0)
  })

  it('hooks missing, a hook file gone, an entry for another server', async () => {
    const bare = await cli('--server-url', open.url, 'doctor', 'claude-code', '--project', project)
    expect(bare.code).toBe(1)
    expect(line(bare.out, 'hooks')).toMatch(
      /^FAIL hooks: no PowerContext hooks in .*\/\.claude\/settings\.local\.json or .*\/\.claude\/settings\.json; run `powercontext setup claude-code` \(or --user\)$/,
    )
    expect(line(bare.out, 'mcp-entry')).toMatch(
      /^FAIL mcp-entry: no powercontext MCP server in .*\.mcp\.json or .*\.claude\.json; run `powercontext setup claude-code`$/,
    )

    await cli('--server-url', open.url, 'setup', 'claude-code', '--project', project)
    const settings = join(project, '.claude', 'settings.local.json')
    writeFileSync(
      settings,
      readFileSync(settings, 'utf8').replaceAll(
        'powercontext-hook.mjs',
        'gone/powercontext-hook.mjs',
      ),
    )
    const gone = await cli('--server-url', open.url, 'doctor', 'claude-code', '--project', project)
    expect(line(gone.out, 'hooks')).toMatch(
      /^FAIL hooks: the SessionStart hook in .*settings\.local\.json runs .*\/gone\/powercontext-hook\.mjs, which does not exist; run `powercontext setup claude-code` again$/,
    )
    const other = await cli(
      '--server-url',
      closedUrl,
      'doctor',
      'claude-code',
      '--project',
      project,
    )
    expect(line(other.out, 'mcp-entry')).toBe(
      `FAIL mcp-entry: ${join(project, '.mcp.json')} points powercontext at ${open.url}/mcp, not ${closedUrl}/mcp; run \`powercontext setup claude-code --server-url ${closedUrl}\``,
    )
    for (const out of [bare.out, gone.out, other.out]) expect(lines(out)).toHaveLength(10)
  })

  it('the project-memory skill: missing, then edited, each one line', async () => {
    const bare = await cli('--server-url', open.url, 'doctor', 'claude-code', '--project', project)
    expect(line(bare.out, 'skill')).toMatch(
      /^FAIL skill: no project-memory skill in .*\/\.claude\/skills\/project-memory\/SKILL\.md or .*\/\.claude\/skills\/project-memory\/SKILL\.md; run `powercontext setup claude-code`$/,
    )
    await cli('--server-url', open.url, 'setup', 'claude-code', '--project', project)
    const skill = join(project, '.claude', 'skills', 'project-memory', 'SKILL.md')
    writeFileSync(skill, `${readFileSync(skill, 'utf8')}\nmy own line\n`)
    const edited = await cli(
      '--server-url',
      open.url,
      'doctor',
      'claude-code',
      '--project',
      project,
    )
    expect(edited.code).toBe(1)
    expect(line(edited.out, 'skill')).toBe(
      `FAIL skill: ${skill} is not this version's project-memory skill; run \`powercontext setup claude-code\` again`,
    )
  })

  it('an unknown host is a usage error', async () => {
    const r = await cli('doctor', 'cursor')
    expect(r.code).toBe(2)
    expect(r.err).toBe('error: unknown host cursor: use claude-code or codex\n')
  })
})

describe('doctor codex', () => {
  it('passes after setup; hooks turned off in config.toml fail in one line', async () => {
    await cli('--server-url', open.url, 'setup', 'codex', '--project', project)
    const r = await cli('doctor', 'codex', '--project', project)
    expect(r.err).toBe('')
    expect(lines(r.out).filter((l) => !l.startsWith('ok  '))).toEqual([
      'skip hook-trust: cannot ask Codex (cannot run /nonexistent/codex: spawn /nonexistent/codex ENOENT); set POWERCONTEXT_CODEX_BIN to the codex executable',
    ])
    expect(line(r.out, 'skill')).toBe(
      `ok   skill: project-memory in ${join(project, '.agents', 'skills', 'project-memory', 'SKILL.md')}`,
    )
    expect(r.code).toBe(0)
    const config = join(project, '.codex', 'config.toml')
    writeFileSync(config, readFileSync(config, 'utf8').replace('hooks = true', 'hooks = false'))
    const off = await cli('doctor', 'codex', '--project', project)
    expect(off.code).toBe(1)
    expect(line(off.out, 'hooks')).toBe(
      `FAIL hooks: hooks are turned off in ${config} ([features] hooks = false)`,
    )
  })
})
