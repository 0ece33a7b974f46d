/**
 * The scope `setup` writes into a host's MCP entry: a project-level entry sends the project's
 * scope as `X-PowerContext-Scope` (Claude Code `headers`, Codex `http_headers`), resolved as the
 * hooks resolve it; a rerun changes nothing; a changed origin updates it in place; a user-level
 * entry sends none. The header written is the one the server's `/mcp` reads: an MCP SDK client
 * sending it lands a call without `scope_id` in the project's memory.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { parse } from 'smol-toml'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { runCli as cli } from '../support/cli-run.js'
import { stubSetupHome } from '../support/setup-home.js'
import { git } from '../support/temp-git.js'
import { useTempServer } from '../support/temp-server.js'

const env = useTempServer('pc-cli-setup-scope-')
const tempDir = (): string => env.tempDir()
let home = ''
beforeEach(() => void (home = stubSetupHome(tempDir())))
afterEach(() => vi.unstubAllEnvs())

/** Our entry in a Claude Code MCP settings file. */
const claudeEntry = (path: string): Record<string, unknown> =>
  (
    JSON.parse(readFileSync(path, 'utf8')) as {
      mcpServers: Record<string, Record<string, unknown>>
    }
  ).mcpServers['powercontext'] ?? {}

/** A Git repository whose origin is `github.com/acme/<name>`. */
function repoWithOrigin(name: string): string {
  const repo = tempDir()
  git(repo, 'init', '-q')
  git(repo, 'remote', 'add', 'origin', `https://github.com/acme/${name}.git`)
  return repo
}

describe('setup writes the project scope into the MCP entry', () => {
  it('Claude Code: .mcp.json sends X-PowerContext-Scope; a rerun changes nothing', async () => {
    const repo = repoWithOrigin('api')
    const setup = ['--server-url', env.server.url, 'setup', 'claude-code', '--project', repo]
    expect((await cli(...setup)).code).toBe(0)
    const entry = claudeEntry(join(repo, '.mcp.json'))
    expect(entry).toEqual({
      type: 'http',
      url: `${env.server.url}/mcp`,
      headers: { 'X-PowerContext-Scope': 'git:github.com/acme/api' },
    })
    const again = await cli(...setup)
    expect(again.out).toMatch(/mcp +unchanged: .*\.mcp\.json: already installed/)
    expect(readdirSync(repo).filter((f) => f.includes('.powercontext-backup-'))).toEqual([])

    // The header is what the server reads: a call without scope_id lands in the project scope.
    const client = new Client({ name: 'setup-scope-test', version: '0.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(String(entry['url'])), {
        requestInit: { headers: entry['headers'] as Record<string, string> },
      }),
    )
    try {
      const text = 'Package manager: pnpm, not npm.'
      const r = (await client.callTool({
        name: 'remember_memory',
        arguments: { entries: [{ kind: 'preference', text }] },
      })) as CallToolResult
      expect(r.isError).toBeUndefined()
      const listed = await cli(
        '--server-url',
        env.server.url,
        '--json',
        'list',
        '--scope',
        'git:github.com/acme/api',
      )
      expect(listed.out).toContain(text)
    } finally {
      await client.close()
    }
  })

  it('Codex: an http_headers table under our entry; a new origin fails doctor until setup updates it', async () => {
    const repo = repoWithOrigin('web')
    const config = join(repo, '.codex', 'config.toml')
    const url = env.server.url
    const setup = () => cli('--server-url', url, 'setup', 'codex', '--project', repo)
    const doctor = async () =>
      (await cli('--server-url', url, 'doctor', 'codex', '--project', repo)).out
        .split('\n')
        .find((l) => l.includes(' mcp-entry: '))
    expect((await setup()).code).toBe(0)
    const text = readFileSync(config, 'utf8')
    expect(text).toContain(
      '[mcp_servers.powercontext.http_headers]\nX-PowerContext-Scope = "git:github.com/acme/web"\n',
    )
    expect(parse(text)['mcp_servers']).toEqual({
      powercontext: {
        url: `${url}/mcp`,
        http_headers: { 'X-PowerContext-Scope': 'git:github.com/acme/web' },
      },
    })
    expect((await setup()).out).toMatch(/mcp +unchanged: .*config\.toml/)
    expect(readFileSync(config, 'utf8')).toBe(text)
    expect(await doctor()).toBe(
      `ok   mcp-entry: powercontext → ${url}/mcp in ${config} (scope git:github.com/acme/web)`,
    )

    git(repo, 'remote', 'set-url', 'origin', 'git@github.com:acme/web-app.git')
    expect(await doctor()).toBe(
      `FAIL mcp-entry: ${config} sends X-PowerContext-Scope git:github.com/acme/web, but the project's scope is git:github.com/acme/web-app now; run \`powercontext setup codex\` again`,
    )
    const moved = await setup()
    expect(moved.out).toContain('updated [mcp_servers.powercontext]')
    const after = readFileSync(config, 'utf8')
    expect(after.match(/\[mcp_servers\.powercontext\.http_headers\]/g)).toHaveLength(1)
    expect(parse(after)['mcp_servers']).toEqual({
      powercontext: {
        url: `${url}/mcp`,
        http_headers: { 'X-PowerContext-Scope': 'git:github.com/acme/web-app' },
      },
    })
    expect(parse(after)['features']).toEqual({ hooks: true })
    expect(await doctor()).toMatch(/^ok {3}mcp-entry: .*\(scope git:github\.com\/acme\/web-app\)$/)
  })

  it('user level: neither host gets a scope header (one entry serves every project)', async () => {
    expect((await cli('setup', 'claude-code', '--user')).code).toBe(0)
    expect(claudeEntry(join(home, '.claude.json'))).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8000/mcp',
    })
    expect((await cli('setup', 'codex', '--user')).code).toBe(0)
    const codex = parse(readFileSync(join(home, '.codex', 'config.toml'), 'utf8'))
    expect(codex['mcp_servers']).toEqual({ powercontext: { url: 'http://127.0.0.1:8000/mcp' } })
  })
})
