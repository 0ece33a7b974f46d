/**
 * The real Claude Code (`claude -p`, the pinned devDependency) with our integration, end to end:
 * `powercontext setup` (project, user) or the plugin directory (`--plugin-dir`) → one headless turn
 * against a scripted Anthropic Messages API on loopback → what the model received (hook context
 * arrives as `role: "system"` messages, tools in `tools`) and what the real server stored. MCP
 * tool search is off (`ENABLE_TOOL_SEARCH=false`) so our tools are listed whole, with their
 * descriptions. Nothing may leave loopback (the egress guard is checked after each test).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { describe, expect, it } from 'vitest'

import { READ_TOOLS, WRITE_TOOLS } from '../../src/cli/agents/mcp-entries.js'
import { messageText, systemMessages } from '../support/anthropic-server.js'
import {
  isOutcome,
  REMEMBER_TURN,
  SEEDED,
  type TestProject,
  TOOL_TURN,
  unreachable,
  useHostFixture,
} from '../support/host-fixture.js'
import { occurrences } from '../support/host-fixture.js'
import { CLAUDE_QUIET_ENV, type HostHome, type HostRun, runClaude } from '../support/host-runner.js'

const fx = useHostFixture('anthropic', 'pc-claude-host-')
const PLUGIN_DIR = fileURLToPath(new URL('../../integrations/claude-code', import.meta.url))

const { preference: PREFERENCE, decision: DECISION } = SEEDED
const PROMPT = 'How do refunds reach the PSP?'

type Body = { messages: { role: string; content: unknown }[]; tools?: ToolDef[] }
type ToolDef = { name: string; description?: string }

const bodies = (): Body[] => fx.model.bodies() as unknown as Body[]
/** The text the hooks added to a request (Claude Code sends it as `role: "system"` messages). */
const hookContext = (body: Body | undefined): string => systemMessages(body).join('\n')
/** The tool results a request carries, in order. */
const toolResults = (body: Body | undefined): { text: string; isError: boolean }[] =>
  (body?.messages ?? []).flatMap((m) =>
    Array.isArray(m.content)
      ? (m.content as { type: string; is_error?: boolean; content?: unknown }[])
          .filter((b) => b.type === 'tool_result')
          .map((b) => ({ text: messageText(b), isError: b.is_error === true }))
      : [],
  )

const turn = (
  prompt: string,
  p: TestProject,
  home: HostHome,
  o: { args?: string[]; env?: Record<string, string> } = {},
): Promise<HostRun> =>
  runClaude(prompt, {
    home,
    cwd: p.dir,
    modelUrl: fx.model.url,
    proxyEnv: fx.guard.env(),
    args: o.args ?? [],
    env: { ENABLE_TOOL_SEARCH: 'false', ...o.env },
  })

const result = (run: HostRun): { result: string; is_error: boolean } =>
  JSON.parse(run.stdout) as { result: string; is_error: boolean }

describe('Claude Code, project setup', () => {
  it('the brief and the recall reach the model once each; our tools are listed; search runs, remember waits for approval; prompt and outcome are captured', async () => {
    const p = await fx.seeded('project')
    const home = fx.home()
    await fx.setup('claude-code', home, '--project', p.dir)
    const NEW = TOOL_TURN.remembered
    fx.model.turns(...TOOL_TURN.replies(p.scope))
    const run = await turn(PROMPT, p, home)
    expect(run.code, run.stderr).toBe(0)
    expect(result(run)).toMatchObject({ is_error: false, result: 'Refunds go via the ledger.' })

    const [first, afterSearch, afterRemember] = bodies()
    const context = hookContext(first)
    expect(context).toContain('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
    // Once each: a memory version already injected in the session is not injected again.
    expect.soft(occurrences(context, PREFERENCE), 'the preference, in the brief').toBe(1)
    expect.soft(occurrences(context, DECISION), 'the decision, in brief and recall').toBe(1)

    const tools = new Map((first?.tools ?? []).map((t) => [t.name, t.description ?? '']))
    for (const tool of [...READ_TOOLS, ...WRITE_TOOLS])
      expect(tools.get(`mcp__powercontext__${tool}`), tool).toMatch(/\w{3,}.{40,}/s)

    // The read tool ran without a prompt (setup allowed it) and found the decision …
    const search = toolResults(afterSearch).at(-1)
    expect(search?.isError).toBe(false)
    expect(search?.text).toContain(DECISION)
    // … the write tool waited for an approval `claude -p` cannot give: nothing was written.
    const remember = toolResults(afterRemember).at(-1)
    expect(remember?.isError).toBe(true)
    expect(remember?.text).not.toContain('mem_')
    expect(await fx.memories(p.scope)).not.toContain(NEW)

    await fx.expectTurnCaptured(p.scope, PROMPT, TOOL_TURN.answer)
  })

  it('in the http form, the second prompt of a session gets no repeats; both prompts are captured', async () => {
    const p = await fx.seeded('http-form')
    const home = fx.home()
    await fx.setup('claude-code', home, '--project', p.dir)
    // The server is on loopback: UserPromptSubmit posts to it, Stop runs detached.
    const settings = JSON.parse(
      readFileSync(join(p.dir, '.claude', 'settings.local.json'), 'utf8'),
    ) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> }
    const prompt = settings.hooks['UserPromptSubmit']?.[0]?.hooks[0]
    expect(prompt).toMatchObject({ type: 'http', url: `${fx.server.url}/v1/hooks/claude-code` })
    expect(String(settings.hooks['Stop']?.[0]?.hooks[0]?.['command'])).toMatch(
      /^POWERCONTEXT_CLIENT_SERVER_URL=\S+ POWERCONTEXT_HOOKS_FORM=http sh \S+\/hook-detach\.sh \S+ "\S+powercontext-hook\.mjs"$/,
    )
    fx.model.turns({ text: 'Via the ledger.' })
    const first = await turn(PROMPT, p, home)
    expect(first.code, first.stderr).toBe(0)
    expect(occurrences(hookContext(bodies()[0]), DECISION)).toBe(1)
    expect(occurrences(hookContext(bodies()[0]), PREFERENCE)).toBe(1)
    const session = (result(first) as unknown as { session_id: string }).session_id

    fx.model.reset()
    fx.model.turns({ text: 'Table-driven, in the ledger sandbox.' })
    const again = 'How should I test refunds to the PSP?'
    const second = await turn(again, p, home, { args: ['--resume', session] })
    expect(second.code, second.stderr).toBe(0)
    // The session already holds both memories (the first turn's context): not given again.
    const sent = JSON.stringify(bodies()[0]?.messages)
    expect(occurrences(sent, DECISION)).toBe(1)
    expect(occurrences(sent, PREFERENCE)).toBe(1)
    await fx.expectTurnCaptured(p.scope, PROMPT, 'Via the ledger.')
    await fx.expectTurnCaptured(p.scope, again, 'Table-driven, in the ledger sandbox.')
  })

  it('a prompt carrying a credential reaches the model but is never stored', async () => {
    const p = await fx.seeded('secret')
    const home = fx.home()
    await fx.setup('claude-code', home, '--project', p.dir)
    fx.model.turns({ text: 'Noted.' })
    const secret = 'password is Winter2024x'
    const run = await turn(`${PROMPT} The sandbox ${secret}.`, p, home)
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.stringify(bodies()[0]?.messages)).toContain(secret)
    expect(hookContext(bodies()[0])).toContain(DECISION) // still recalled for
    // The turn's outcome is captured (after the prompt, by the Stop hook's worker) …
    const stored = await fx.sourcesWhen(p.scope, (all) => all.some((s) => isOutcome(s)))
    expect(stored.some((s) => isOutcome(s))).toBe(true)
    expect(JSON.stringify(stored)).not.toContain('Winter2024x') // … the prompt is not
  })
})

describe('Claude Code, a server that requires a token', () => {
  it('the MCP entry sends the token from the environment (never written); hooks and tools work', async () => {
    const TOKEN = 'host-test-t0k3n-5521'
    const auth = await fx.startServer({ POWERCONTEXT_SERVER_AUTH_TOKEN: TOKEN })
    const p = fx.project('token')
    const home = fx.home()
    const entries = [{ kind: 'decision', text: DECISION }]
    const res = await fetch(`${auth.url}/v1/memory/remember`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ scope_id: p.scope, entries }),
    })
    expect(res.status).toBe(200)
    const s = await fx.cli(
      home,
      '--server-url',
      auth.url,
      '--token',
      TOKEN,
      'setup',
      'claude-code',
      '--project',
      p.dir,
    )
    expect(s.code, s.stderr).toBe(0)
    expect(readFileSync(join(p.dir, '.mcp.json'), 'utf8')).not.toContain(TOKEN)
    fx.model.turns(
      { tool: 'mcp__powercontext__search_memory', input: { scope_id: p.scope, query: 'refunds' } },
      { text: 'Found.' },
    )
    const run = await turn(PROMPT, p, home, { env: { POWERCONTEXT_CLIENT_API_TOKEN: TOKEN } })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).not.toContain('headersHelper')
    expect(hookContext(bodies()[0])).toContain(DECISION)
    expect(toolResults(bodies()[1]).at(-1)).toMatchObject({ isError: false })
    expect(toolResults(bodies()[1]).at(-1)?.text).toContain(DECISION)
  })
})

describe('Claude Code, user setup with --allow-writes', () => {
  it('remember_memory is stored without a prompt, and a second session gets it in its brief', async () => {
    const p = fx.project('user')
    const home = fx.home()
    await fx.setup('claude-code', home, '--user', '--allow-writes')
    const NEW = REMEMBER_TURN.remembered
    fx.model.turns(...REMEMBER_TURN.replies(p.scope))
    const first = await turn(REMEMBER_TURN.prompt, p, home)
    expect(first.code, first.stderr).toBe(0)
    const stored = toolResults(bodies()[1]).at(-1)
    expect(stored).toMatchObject({ isError: false })
    expect(stored?.text).toContain('mem_')
    expect(await fx.memories(p.scope)).toContain(NEW)
    const firstSession = result(first) as unknown as { session_id: string }

    fx.model.reset()
    fx.model.turns({ text: 'Using the sandbox.' })
    const second = await turn('Write a refund test.', p, home)
    expect(second.code, second.stderr).toBe(0)
    expect((result(second) as unknown as { session_id: string }).session_id).not.toBe(
      firstSession.session_id,
    )
    expect(hookContext(bodies()[0])).toContain(NEW)
    expect.soft(occurrences(hookContext(bodies()[0]), NEW), 'in brief and recall').toBe(1)
  })
})

describe('Claude Code, the plugin directory', () => {
  // A side-loaded plugin's options live in settings under `pluginConfigs["<name>@inline"]`.
  const option = (home: HostHome, url: string): void =>
    writeFileSync(
      join(home.home, '.claude', 'settings.json'),
      JSON.stringify({
        pluginConfigs: { 'powercontext@inline': { options: { server_url: url } } },
      }),
    )
  for (const how of ['POWERCONTEXT_CLIENT_SERVER_URL', 'the server_url option'] as const)
    it(`its MCP server and hooks use ${how}`, async () => {
      const p = await fx.seeded('plugin')
      const home = fx.home()
      if (how !== 'POWERCONTEXT_CLIENT_SERVER_URL') option(home, fx.server.url)
      const tool = 'mcp__plugin_powercontext_powercontext__search_memory'
      fx.model.turns(
        { tool, input: { scope_id: p.scope, query: 'refunds' } },
        { text: 'Found it.' },
      )
      const run = await turn(PROMPT, p, home, {
        args: ['--plugin-dir', PLUGIN_DIR, '--allowedTools', tool],
        env:
          how === 'POWERCONTEXT_CLIENT_SERVER_URL'
            ? { POWERCONTEXT_CLIENT_SERVER_URL: fx.server.url }
            : {},
      })
      expect(run.code, run.stderr).toBe(0)
      const [first, afterSearch] = bodies()
      expect((first?.tools ?? []).map((t) => t.name)).toContain(tool)
      expect(toolResults(afterSearch).at(-1)?.text).toContain(DECISION)
      expect(hookContext(first)).toContain(PREFERENCE)
    })
})

describe('the egress guard', () => {
  it('sees what Claude Code sends beyond loopback once its own switches are off', async () => {
    const p = fx.project('egress')
    fx.model.turns({ text: 'ok' })
    const loud = Object.fromEntries(Object.keys(CLAUDE_QUIET_ENV).map((k) => [k, '']))
    const run = await turn('hi', p, fx.home(), { env: loud })
    expect(run.code, run.stderr).toBe(0)
    const seen = fx.guard.attempts.splice(0)
    expect(seen.length).toBeGreaterThan(0)
    expect(seen.every((a) => !/^(127\.|localhost|\[::1\])/.test(a))).toBe(true)
  })
})

describe('Claude Code, the server down or hung', () => {
  for (const [what, url] of unreachable(fx))
    it(`server ${what}: the turn completes normally and our hooks add nothing`, async () => {
      const p = fx.project(`server-${what}`)
      const home = fx.home()
      const run0 = await fx.cli(
        home,
        'setup',
        'claude-code',
        '--project',
        p.dir,
        '--server-url',
        url(),
      )
      expect(run0.code).toBe(0)
      fx.model.turns({ text: 'Answered without memory.' })
      const run = await turn(PROMPT, p, home)
      expect(run.code, run.stderr).toBe(0)
      expect(result(run)).toMatchObject({ is_error: false, result: 'Answered without memory.' })
      expect(hookContext(bodies()[0])).not.toContain('POWERCONTEXT')
    })
})
