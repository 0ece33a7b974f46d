/**
 * `powercontext setup claude-code|codex` on a temporary HOME and project that already have
 * settings: merged (nobody else's hooks or servers touched), idempotent (a second run changes
 * nothing and makes no backup), backed up, dry run writes nothing, absolute commands that point
 * at existing files; the Git post-commit hook, merged with an existing one and run by a real
 * commit against a real server.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { parse } from 'smol-toml'
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { scriptPaths } from '../../src/cli/agents/agent-hosts.js'
import { gitCaptureStatePath } from '../../src/cli/git-capture-state.js'
import { projectScope } from '../../src/cli/project-scope.js'
import { runCli as cli } from '../support/cli-run.js'
import { stubSetupHome } from '../support/setup-home.js'
import { git } from '../support/temp-git.js'
import { useTempServer } from '../support/temp-server.js'

const env = useTempServer('pc-cli-setup-')
const { tempDir } = env
let home = ''
beforeEach(() => {
  home = stubSetupHome(tempDir())
  return () => vi.unstubAllEnvs()
})

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8'))
const writeJson = (path: string, value: unknown): void => {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`)
}
const backups = (dir: string): string[] =>
  readdirSync(dir).filter((f) => f.includes('.powercontext-backup-'))

const THEIR_HOOKS = {
  PreToolUse: [
    { matcher: 'Bash', hooks: [{ type: 'command', command: 'lint-guard', timeout: 5 }] },
  ],
  UserPromptSubmit: [{ hooks: [{ type: 'command', command: '/opt/other/notify.sh' }] }],
}
const OUR_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'PreCompact']

/** The package's project-memory skill for a host. */
const skillText = (host: string): string =>
  readFileSync(join('integrations', host, 'skills', 'project-memory', 'SKILL.md'), 'utf8')

/**
 * Every command of ours is absolute: the running node and an existing hook script. Claude Code
 * with a server on loopback (every setup here) posts UserPromptSubmit to the server instead.
 */
function expectAbsoluteCommands(settings: Json, host = 'claude-code'): void {
  for (const event of OUR_EVENTS) {
    if (host === 'claude-code' && event === 'UserPromptSubmit') {
      const http = (settings['hooks'][event] as Json[])
        .flatMap((g) => g.hooks)
        .filter((h: Json) => h['type'] === 'http')
      expect(http, event).toHaveLength(1)
      expect(String(http[0]?.['url'])).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/v1\/hooks\/claude-code$/,
      )
      continue
    }
    const ours = (settings['hooks'][event] as Json[])
      .flatMap((g) => g.hooks)
      .filter((h: Json) => String(h['command']).includes(`integrations/${host}/`))
    expect(ours, event).toHaveLength(1)
    const command = String(ours[0]?.['command'])
    expect(command.startsWith(process.execPath) || command.includes(`${process.execPath} `)).toBe(
      true,
    )
    const scripts = scriptPaths(command)
    expect(scripts.length).toBeGreaterThan(0)
    for (const s of scripts) expect(existsSync(s), s).toBe(true)
    if (event !== 'Stop') continue
    // Stop hands over through the POSIX shell entry: no Node start on the host's turn.
    const entry = /(?:^|\s)sh (\S+\/integrations\/shared\/hook-detach\.sh) \S+ "[^"]+\.mjs"$/.exec(
      command,
    )
    expect(entry, command).not.toBeNull()
    expect(existsSync(entry![1]!)).toBe(true)
  }
}

describe('setup claude-code --user', () => {
  it('merges into existing settings, backs them up, and a second run changes nothing', async () => {
    const settingsPath = join(home, '.claude', 'settings.json')
    writeJson(settingsPath, { model: 'opus', hooks: THEIR_HOOKS })
    const claudeJson = join(home, '.claude.json')
    const theirServer = { type: 'stdio', command: 'npx', args: ['other-mcp'] }
    writeJson(claudeJson, { numStartups: 7, mcpServers: { other: theirServer } })
    const before = readFileSync(settingsPath, 'utf8')

    const first = await cli('setup', 'claude-code', '--user')
    expect(first.err).toBe('')
    expect(first.code).toBe(0)
    expect(first.out).toContain(`setup claude-code for the user (server http://127.0.0.1:8000):`)
    expect(first.out).toMatch(
      /hooks +updated: .*settings\.json: added UserPromptSubmit, added SessionStart, added Stop, added PreCompact, allowed .*search_memory \(backup /,
    )

    const settings = readJson(settingsPath)
    expect(settings['model']).toBe('opus')
    expect(settings['hooks']['PreToolUse']).toEqual(THEIR_HOOKS.PreToolUse)
    expect(settings['hooks']['UserPromptSubmit'][0]).toEqual(THEIR_HOOKS.UserPromptSubmit[0])
    expectAbsoluteCommands(settings)
    const mcp = readJson(claudeJson)
    expect(mcp['numStartups']).toBe(7)
    expect(mcp['mcpServers']['other']).toEqual(theirServer)
    // User level: every project's entry, so no scope header (the model names the scope).
    expect(mcp['mcpServers']['powercontext']).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8000/mcp',
    })
    const [backup] = backups(join(home, '.claude'))
    expect(readFileSync(join(home, '.claude', backup as string), 'utf8')).toBe(before)
    const skill = join(home, '.claude', 'skills', 'project-memory', 'SKILL.md')
    expect(first.out).toContain(`skill    created: ${skill}: installed project-memory`)
    expect(readFileSync(skill, 'utf8')).toBe(skillText('claude-code'))
    expect(backups(home)).toHaveLength(1)
    const second = await cli('setup', 'claude-code', '--user')
    expect(second.code).toBe(0)
    expect(second.out.match(/unchanged: .*: already installed/g)).toHaveLength(3)
    expect(readJson(settingsPath)).toEqual(settings)
    expect(backups(join(home, '.claude'))).toHaveLength(1)
    expect(backups(home)).toHaveLength(1)

    // Another server URL replaces our entries, never adds a second copy.
    const other = await cli(
      '--server-url',
      'http://127.0.0.1:9999',
      'setup',
      'claude-code',
      '--user',
    )
    expect(other.code).toBe(0)
    const moved = readJson(settingsPath)
    expectAbsoluteCommands(moved)
    expect(JSON.stringify(moved['hooks']['Stop'])).toContain(
      'POWERCONTEXT_CLIENT_SERVER_URL=http://127.0.0.1:9999',
    )
    expect(readJson(claudeJson)['mcpServers']['powercontext']['url']).toBe(
      'http://127.0.0.1:9999/mcp',
    )
  })

  it('replaces an edited or older skill, keeping a backup; a rerun leaves it', async () => {
    const dir = join(home, '.claude', 'skills', 'project-memory')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'SKILL.md'), '---\nname: project-memory\n---\nold text\n')
    const r = await cli('setup', 'claude-code', '--user')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/skill +updated: .*SKILL\.md: updated project-memory \(backup /)
    expect(readFileSync(join(dir, 'SKILL.md'), 'utf8')).toBe(skillText('claude-code'))
    const [backup] = backups(dir)
    expect(readFileSync(join(dir, backup as string), 'utf8')).toContain('old text')
    const again = await cli('setup', 'claude-code', '--user')
    expect(again.out).toMatch(/skill +unchanged: .*SKILL\.md: already installed/)
    expect(backups(dir)).toHaveLength(1)
  })

  it('--dry-run prints the changes and writes nothing', async () => {
    const r = await cli('setup', 'claude-code', '--user', '--dry-run')
    expect(r.code).toBe(0)
    expect(r.out).toContain('would be created')
    expect(r.out).toContain('dry run: nothing was written')
    expect(readdirSync(home)).toEqual([])
  })

  it('refuses a settings file that is not JSON and leaves it as it was', async () => {
    const settingsPath = join(home, '.claude', 'settings.json')
    mkdirSync(join(home, '.claude'))
    writeFileSync(settingsPath, '{ "hooks": ')
    const r = await cli('setup', 'claude-code', '--user')
    expect(r.code).toBe(1)
    expect(r.err).toMatch(
      /^error: invalid_request: .*settings\.json cannot be read as settings .*nothing was written/,
    )
    expect(readFileSync(settingsPath, 'utf8')).toBe('{ "hooks": ')
    expect(existsSync(join(home, '.claude.json'))).toBe(false)
  })
})

describe('setup claude-code --project with --git-hook', () => {
  it('writes the local settings and .mcp.json, merges the post-commit hook, and a commit is captured', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q', '-b', 'main')
    writeJson(join(repo, '.mcp.json'), {
      mcpServers: { docs: { type: 'http', url: 'https://docs.example/mcp' } },
    })
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    writeFileSync(
      hook,
      '#!/bin/sh\necho theirs > "$(git rev-parse --git-dir)/theirs-ran"\nexit 0\n',
      { mode: 0o755 },
    )

    const setup = [
      '--server-url',
      env.server.url,
      'setup',
      'claude-code',
      '--project',
      repo,
      '--git-hook',
    ]
    const r = await cli(...setup)
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toContain(`setup claude-code for project ${repo} (server ${env.server.url}):`)
    expectAbsoluteCommands(readJson(join(repo, '.claude', 'settings.local.json')))
    const mcp = readJson(join(repo, '.mcp.json'))
    expect(Object.keys(mcp['mcpServers'])).toEqual(['docs', 'powercontext'])
    expect(mcp['mcpServers']['powercontext']['url']).toBe(`${env.server.url}/mcp`)
    const hookText = readFileSync(hook, 'utf8')
    expect(hookText.startsWith('#!/bin/sh\necho theirs')).toBe(true)
    expect(hookText.trimEnd().endsWith('# <<< powercontext capture git <<<\nexit 0')).toBe(true)
    expect(statSync(hook).mode & 0o111).toBe(0o111)
    // The files holding this machine's paths are excluded locally, never shown as changes.
    const exclude = readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')
    expect(exclude).toContain('\n/.claude/settings.local.json\n')
    expect(exclude).toContain('\n/.mcp.json\n/.mcp.json.powercontext-backup-*\n')
    // The skill holds no machine path: it is left for the team to commit.
    const skill = join(repo, '.claude', 'skills', 'project-memory', 'SKILL.md')
    expect(readFileSync(skill, 'utf8')).toBe(skillText('claude-code'))
    expect(git(repo, 'status', '--porcelain', '-uall')).toBe(
      '?? .claude/skills/project-memory/SKILL.md',
    )

    const again = await cli(...setup)
    expect(again.out.match(/unchanged/g)).toHaveLength(5)
    expect(readFileSync(hook, 'utf8')).toBe(hookText)

    // A real commit runs both hooks; ours captures it into the server in the background.
    writeFileSync(join(repo, 'a.txt'), 'a\n')
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'first commit')
    const head = git(repo, 'rev-parse', 'HEAD')
    const statePath = gitCaptureStatePath(join(repo, '.git'))
    for (let i = 0; i < 100 && !existsSync(statePath); i++)
      await new Promise((r) => setTimeout(r, 100))
    expect(readFileSync(statePath, 'utf8')).toContain(head)
    expect(existsSync(join(repo, '.git', 'theirs-ran'))).toBe(true)
  }, 30_000)

  it('leaves a post-commit hook in another language alone and says what to add', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const hook = join(repo, '.git', 'hooks', 'post-commit')
    writeFileSync(hook, '#!/usr/bin/env python3\nprint("hi")\n', { mode: 0o755 })
    const r = await cli('setup', 'claude-code', '--project', repo, '--git-hook')
    expect(r.code).toBe(1)
    expect(r.err).toMatch(
      /post-commit is not a shell script .* add this line to it yourself: .* capture git --repo/,
    )
    expect(readFileSync(hook, 'utf8')).toBe('#!/usr/bin/env python3\nprint("hi")\n')
  })
})

describe('setup codex', () => {
  it('keeps the comments and servers of config.toml, merges hooks.json, and is idempotent', async () => {
    const codexHome = join(home, '.codex')
    mkdirSync(codexHome)
    const config = [
      '# my Codex settings',
      'model = "gpt-5"',
      '',
      '[mcp_servers.docs] # the docs server',
      'url = "https://docs.example/mcp"',
      '',
      '[features]',
      'hooks = true',
      '',
    ].join('\n')
    writeFileSync(join(codexHome, 'config.toml'), config)
    writeJson(join(codexHome, 'hooks.json'), { hooks: { Stop: THEIR_HOOKS.UserPromptSubmit } })

    const r = await cli('--token', 't0k3n-value', 'setup', 'codex', '--user')
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const text = readFileSync(join(codexHome, 'config.toml'), 'utf8')
    expect(text.startsWith(config)).toBe(true)
    expect(text).not.toContain('t0k3n-value')
    expect(parse(text)['mcp_servers']).toEqual({
      docs: { url: 'https://docs.example/mcp' },
      powercontext: {
        url: 'http://127.0.0.1:8000/mcp',
        bearer_token_env_var: 'POWERCONTEXT_CLIENT_API_TOKEN',
      },
    })
    const hooks = readJson(join(codexHome, 'hooks.json'))
    expect(hooks['hooks']['Stop'][0]).toEqual(THEIR_HOOKS.UserPromptSubmit[0])
    const commands = JSON.stringify(hooks)
    expect(commands).toContain('integrations/codex/')
    for (const s of scriptPaths(commands.replace(/\\"/g, '"'))) expect(existsSync(s), s).toBe(true)

    const again = await cli('--token', 't0k3n-value', 'setup', 'codex', '--user')
    // hooks, mcp, skill, and Codex's trust (not asked)
    expect(again.out.match(/unchanged/g)).toHaveLength(4)
    const skill = join(codexHome, 'skills', 'project-memory', 'SKILL.md')
    expect(readFileSync(skill, 'utf8')).toBe(skillText('codex'))
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(text)
    expect(backups(codexHome)).toHaveLength(2)

    // Without a token the entry loses bearer_token_env_var: only our lines are rewritten.
    await cli('setup', 'codex', '--user')
    const third = readFileSync(join(codexHome, 'config.toml'), 'utf8')
    expect(third.startsWith(config)).toBe(true)
    expect(parse(third)['mcp_servers']).toMatchObject({
      powercontext: { url: 'http://127.0.0.1:8000/mcp' },
    })
    expect(third).not.toContain('bearer_token_env_var')
  })
  it('a fresh project gets hooks.json, the server and the hooks feature', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const r = await cli('setup', 'codex', '--project', repo)
    expect(r.code).toBe(0)
    expect(r.out).toContain('set [features] hooks = true')
    expectAbsoluteCommands(readJson(join(repo, '.codex', 'hooks.json')), 'codex')
    // Codex reads a repository's skills from `.agents/skills/`.
    const skill = join(repo, '.agents', 'skills', 'project-memory', 'SKILL.md')
    expect(readFileSync(skill, 'utf8')).toBe(skillText('codex'))
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toMatch(
      /\n\/\.codex\/hooks\.json\n/,
    )
    const http_headers = { 'X-PowerContext-Scope': projectScope(repo) }
    expect(parse(readFileSync(join(repo, '.codex', 'config.toml'), 'utf8'))).toEqual({
      mcp_servers: { powercontext: { url: 'http://127.0.0.1:8000/mcp', http_headers } },
      features: { hooks: true },
    })
  })
})

describe('setup: which of our tools the agent may call without asking', () => {
  const rules = (path: string): string[] =>
    (readJson(path)['permissions']?.['allow'] ?? []) as string[]
  it('Claude Code: read tools always, write tools with --allow-writes; other rules kept', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const local = join(repo, '.claude', 'settings.local.json')
    writeJson(local, { permissions: { allow: ['Bash(npm test)'], deny: ['Read(.env)'] } })
    expect((await cli('setup', 'claude-code', '--project', repo)).code).toBe(0)
    const read = rules(local)
    expect(read).toContain('Bash(npm test)')
    expect(read).toContain('mcp__powercontext__search_memory')
    expect(read).toContain('mcp__powercontext__memory_history')
    expect(read.some((r) => /remember|update|forget|merge|restore_memory/.test(r))).toBe(false)
    expect(readJson(local)['permissions']['deny']).toEqual(['Read(.env)'])

    const writes = await cli('setup', 'claude-code', '--project', repo, '--allow-writes')
    expect(writes.out).toMatch(/allowed remember_memory, .*forget_memory/)
    expect(rules(local)).toContain('mcp__powercontext__remember_memory')
    // Without the flag again, setup takes the write tools back (it owns only its own rules).
    const back = await cli('setup', 'claude-code', '--project', repo)
    expect(back.out).toMatch(/no longer allowed remember_memory/)
    expect(rules(local)).toEqual(read)
  })
  it('Claude Code: with a token the MCP entry sends it from the environment, never written', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    expect(
      (await cli('--token', 's3cr3t-t0k3n', 'setup', 'claude-code', '--project', repo)).code,
    ).toBe(0)
    const text = readFileSync(join(repo, '.mcp.json'), 'utf8')
    expect(text).not.toContain('s3cr3t-t0k3n')
    expect(JSON.parse(text)['mcpServers']['powercontext']).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8000/mcp',
      headers: {
        Authorization: 'Bearer ${POWERCONTEXT_CLIENT_API_TOKEN}',
        'X-PowerContext-Scope': projectScope(repo),
      },
    })
    // The prompt hook posts to the server with the token from the environment, never written.
    const hooks = readFileSync(join(repo, '.claude', 'settings.local.json'), 'utf8')
    expect(hooks).not.toContain('s3cr3t-t0k3n')
    expect(JSON.parse(hooks)['hooks']['UserPromptSubmit']).toEqual([
      {
        hooks: [
          {
            type: 'http',
            url: 'http://127.0.0.1:8000/v1/hooks/claude-code',
            headers: {
              Authorization: 'Bearer $POWERCONTEXT_CLIENT_API_TOKEN',
              'X-PowerContext-Scope': '$POWERCONTEXT_CLAUDE_SCOPE_ID',
            },
            allowedEnvVars: ['POWERCONTEXT_CLIENT_API_TOKEN', 'POWERCONTEXT_CLAUDE_SCOPE_ID'],
            timeout: 1,
          },
        ],
      },
    ])
  })

  it('Claude Code: a server beyond this machine keeps every hook a command (no http form)', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const url = 'https://memory.example.com'
    expect((await cli('setup', 'claude-code', '--project', repo, '--server-url', url)).code).toBe(0)
    const settings = readJson(join(repo, '.claude', 'settings.local.json'))
    const prompt = settings['hooks']['UserPromptSubmit'][0]['hooks'][0] as Json
    expect(prompt['type']).toBe('command')
    expect(String(prompt['command'])).not.toContain('POWERCONTEXT_HOOKS_FORM')
    expect(JSON.stringify(settings['hooks'])).not.toContain('"http"')
    // Switching back to a loopback server turns the prompt hook into the http form, in place.
    expect((await cli('setup', 'claude-code', '--project', repo)).code).toBe(0)
    const again = readJson(join(repo, '.claude', 'settings.local.json'))
    expect(again['hooks']['UserPromptSubmit']).toHaveLength(1)
    expect(again['hooks']['UserPromptSubmit'][0]['hooks'][0]['type']).toBe('http')
  })
  it('Codex: write tools approved only with --allow-writes', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const config = join(repo, '.codex', 'config.toml')
    const url = 'http://127.0.0.1:8000/mcp'
    const http_headers = { 'X-PowerContext-Scope': projectScope(repo) }
    const servers = () => parse(readFileSync(config, 'utf8'))['mcp_servers']
    await cli('setup', 'codex', '--project', repo)
    expect(servers()).toEqual({ powercontext: { url, http_headers } })
    await cli('setup', 'codex', '--project', repo, '--allow-writes')
    const approve = { default_tools_approval_mode: 'approve' }
    expect(servers()).toEqual({ powercontext: { url, ...approve, http_headers } })
  })
})

describe('setup codex: the hooks feature', () => {
  it('renames the deprecated codex_hooks = true, keeps a false and warns about it', async () => {
    const repo = tempDir()
    git(repo, 'init', '-q')
    const config = join(repo, '.codex', 'config.toml')
    mkdirSync(join(repo, '.codex'))
    writeFileSync(config, '# mine\n[features]\ncodex_hooks = true # old setup\nweb_search = true\n')
    const r = await cli('setup', 'codex', '--project', repo)
    expect(r.out).toContain('set [features] hooks = true')
    expect(r.out).not.toContain('turns Codex hooks off')
    expect(readFileSync(config, 'utf8')).toMatch(
      /^# mine\n\[features\]\nhooks = true # old setup\nweb_search = true\n/,
    )

    writeFileSync(config, '[features]\nhooks = false\n')
    const off = await cli('setup', 'codex', '--project', repo)
    expect(off.code).toBe(0)
    expect(parse(readFileSync(config, 'utf8'))['features']).toEqual({ hooks: false })
    expect(off.out).toContain(
      `warning: ${config} turns Codex hooks off ([features] hooks = false): PowerContext's hooks will not run until that line is removed`,
    )
  })
})
