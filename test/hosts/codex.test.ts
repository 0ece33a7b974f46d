/**
 * The real Codex (`codex exec`, the pinned devDependency) with our integration, end to end:
 * `powercontext setup codex` (project, user) → one headless turn against a scripted OpenAI
 * Responses API on loopback → what the model received (hook context arrives as `developer`-role
 * input, our tools as the namespace `mcp__powercontext`) and what the real server stored; and
 * `doctor codex` against what Codex itself says (`codex app-server`) about whether it will run
 * the hooks. Nothing may leave loopback (the egress guard is checked after each test).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { withCodexAppServer } from '../../src/cli/agents/hosts/codex/app-server.js'
import { READ_TOOLS, WRITE_TOOLS } from '../../src/cli/agents/mcp-entries.js'
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
import { type HostHome, type HostRun, runCodex, writeCodexConfig } from '../support/host-runner.js'
import { developerInput } from '../support/responses-server.js'

const fx = useHostFixture('openai', 'pc-codex-host-')

const { preference: PREFERENCE, decision: DECISION } = SEEDED
const PROMPT = 'How do refunds reach the PSP?'

type Item = { type?: string; role?: string; content?: unknown; output?: unknown }
type Body = { input: Item[]; tools?: { type: string; name?: string; tools?: ToolDef[] }[] }
type ToolDef = { name: string; description?: string }

const bodies = (): Body[] => fx.model.bodies() as unknown as Body[]
/** What the hooks added: Codex passes it as `developer`-role input messages. */
const hookContext = (body: Body | undefined): string => developerInput(body).join('\n')
const lastToolOutput = (body: Body | undefined): string =>
  String((body?.input ?? []).filter((i) => i.type === 'function_call_output').at(-1)?.output ?? '')

/** A HOME whose Codex talks to the scripted model and trusts `trusted` projects. */
function home(...trusted: TestProject[]): HostHome {
  const h = fx.home()
  const projects = trusted.map((p) => `[projects."${p.dir}"]\ntrust_level = "trusted"\n`)
  writeCodexConfig(h, fx.model.url, projects.join('\n'))
  return h
}

const turn = (prompt: string, p: TestProject, h: HostHome): Promise<HostRun> =>
  runCodex(prompt, { home: h, cwd: p.dir, modelUrl: fx.model.url, proxyEnv: fx.guard.env() })

const doctor = async (h: HostHome, p: TestProject): Promise<string> =>
  (await fx.cli(h, 'doctor', 'codex', '--project', p.dir, '--server-url', fx.server.url)).stdout

describe('Codex, project setup in a trusted project', () => {
  it('setup has Codex trust our hooks; brief and recall arrive once each; our tools are listed; search runs, remember is refused under exec; prompt and outcome are captured', async () => {
    const p = await fx.seeded('project')
    const h = home(p)
    const out = await fx.setup('codex', h, '--project', p.dir)
    expect(out).toContain('set [features] hooks = true')
    expect(out).toMatch(/trust +updated: .*config\.toml: Codex now trusts SessionStart/)
    expect(out).not.toContain('warning')
    expect(await doctor(h, p)).toMatch(/^ok {3}hook-trust: Codex will run /m)
    // Codex itself lists the installed project-memory skill as the repository's.
    const skills = await withCodexAppServer((c) => c.listSkills(p.dir), {
      ...process.env,
      HOME: h.home,
      CODEX_HOME: h.codexHome,
    })
    expect('result' in skills ? skills.result : skills.error.message).toContainEqual(
      expect.objectContaining({
        name: 'project-memory',
        path: join(p.dir, '.agents', 'skills', 'project-memory', 'SKILL.md'),
        scope: 'repo',
      }),
    )

    const NEW = TOOL_TURN.remembered
    fx.model.turns(...TOOL_TURN.replies(p.scope))
    const run = await turn(PROMPT, p, h)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Refunds go via the ledger.')
    expect(run.stderr).not.toContain('deprecated')

    const [first, afterSearch, afterRemember] = bodies()
    const context = hookContext(first)
    expect(context).toContain('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
    expect(context).toContain(DECISION)
    // Once each: a memory version already injected in the session is not injected again.
    expect.soft(occurrences(context, PREFERENCE), 'the preference, in the brief').toBe(1)
    expect.soft(occurrences(context, DECISION), 'the decision, in brief and recall').toBe(1)

    const ns = (first?.tools ?? []).find((t) => t.name === 'mcp__powercontext')
    expect(ns?.type).toBe('namespace')
    const tools = new Map((ns?.tools ?? []).map((t) => [t.name, t.description ?? '']))
    for (const tool of [...READ_TOOLS, ...WRITE_TOOLS])
      expect(tools.get(tool), tool).toMatch(/\w{3,}.{40,}/s)

    expect(lastToolOutput(afterSearch)).toContain(DECISION)
    // Under `exec` nobody can approve a write: Codex refuses it, nothing is written.
    expect(lastToolOutput(afterRemember)).not.toContain('mem_')
    expect(await fx.memories(p.scope)).not.toContain(NEW)

    await fx.expectTurnCaptured(p.scope, PROMPT, TOOL_TURN.answer)
  })

  it('a prompt carrying a credential reaches the model but is never stored; a search without scope_id runs in the project scope', async () => {
    const p = await fx.seeded('secret')
    const h = home(p)
    await fx.setup('codex', h, '--project', p.dir)
    // No scope_id: the entry's `http_headers` name the project's scope (X-PowerContext-Scope).
    const search = { tool: 'mcp__powercontext__search_memory', input: { query: 'refunds' } }
    fx.model.turns(search, { text: 'Noted.' })
    const run = await turn(`${PROMPT} The sandbox password is Winter2024x.`, p, h)
    expect(run.code, run.stderr).toBe(0)
    expect(lastToolOutput(bodies()[1])).toContain(DECISION)
    expect(JSON.stringify(bodies()[0]?.input)).toContain('Winter2024x')
    expect(hookContext(bodies()[0])).toContain(DECISION)
    // The turn's outcome is captured (after the prompt, by the Stop hook's worker) …
    const stored = await fx.sourcesWhen(p.scope, (all) => all.some((s) => isOutcome(s)))
    expect(stored.some((s) => isOutcome(s))).toBe(true)
    expect(JSON.stringify(stored)).not.toContain('Winter2024x') // … the prompt is not
  })
})

describe('Codex, user setup with --allow-writes', () => {
  it('remember_memory is stored, and a second session gets it in its brief', async () => {
    const p = fx.project('user')
    const h = home(p)
    const out = await fx.setup('codex', h, '--user', '--allow-writes')
    expect(out).toMatch(/trust +updated: .*Codex now trusts/)
    const NEW = REMEMBER_TURN.remembered
    fx.model.turns(...REMEMBER_TURN.replies(p.scope))
    const first = await turn(REMEMBER_TURN.prompt, p, h)
    expect(first.code, first.stderr).toBe(0)
    expect(lastToolOutput(bodies()[1])).toContain('mem_')
    expect(await fx.memories(p.scope)).toContain(NEW)

    fx.model.reset()
    fx.model.turns({ text: 'Using the sandbox.' })
    const second = await turn('Write a refund test.', p, h)
    expect(second.code, second.stderr).toBe(0)
    expect(hookContext(bodies()[0])).toContain(NEW)
    expect.soft(occurrences(hookContext(bodies()[0]), NEW), 'in brief and recall').toBe(1)
  })
})

describe('Codex: doctor names every reason the hooks would not run', () => {
  it('untrusted project, unreviewed hooks, hooks turned off — each with its step; setup fixes what it may', async () => {
    const p = await fx.seeded('doctor')
    const untrusted = home()
    await fx.cli(untrusted, 'setup', 'codex', '--project', p.dir, '--server-url', fx.server.url)
    expect(await doctor(untrusted, p)).toMatch(
      /^FAIL hook-trust: Codex does not trust .*: .*start `codex` in .* once and trust the folder/m,
    )

    // Trusted, hooks installed, but their review dropped (as after an edit of hooks.json).
    const h = home(p)
    await fx.setup('codex', h, '--project', p.dir)
    const stateBefore = readFileSync(join(h.codexHome, 'config.toml'), 'utf8')
    writeFileSync(
      join(h.codexHome, 'config.toml'),
      stateBefore.replace(/\n\[hooks\.state[^]*$/, '\n'),
    )
    expect(await doctor(h, p)).toMatch(
      /^FAIL hook-trust: Codex has not reviewed SessionStart, .* run `powercontext setup codex` again/m,
    )
    // … and Codex skips them without a word:
    fx.model.turns({ text: 'No memory here.' })
    const skipped = await turn(PROMPT, p, h)
    expect(skipped.code, skipped.stderr).toBe(0)
    expect(hookContext(bodies()[0])).not.toContain('POWERCONTEXT')
    fx.model.reset()

    // setup again records Codex's trust; doctor is satisfied.
    expect(await fx.setup('codex', h, '--project', p.dir)).toMatch(/Codex now trusts/)
    expect(await doctor(h, p)).toMatch(/^ok {3}hook-trust/m)

    // Hooks turned off in the user's config: setup warns, doctor fails with the file.
    const config = join(h.codexHome, 'config.toml')
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace('[features]\n', '[features]\nhooks = false\n'),
    )
    const warned = await fx.setup('codex', h, '--project', p.dir)
    expect(warned).toContain(`warning: ${config} turns Codex hooks off ([features] hooks = false)`)
    expect(await doctor(h, p)).toMatch(
      new RegExp(`^FAIL hook-trust: ${config.replace(/[.]/g, '\\.')} turns Codex hooks off`, 'm'),
    )
  })
})

describe('Codex, the server down or hung', () => {
  for (const [what, url] of unreachable(fx))
    it(`server ${what}: the turn completes normally and our hooks add nothing`, async () => {
      const p = fx.project(`server-${what}`)
      const h = home(p)
      const s = await fx.cli(h, 'setup', 'codex', '--project', p.dir, '--server-url', url())
      expect(s.code).toBe(0)
      fx.model.turns({ text: 'Answered without memory.' })
      const run = await turn(PROMPT, p, h)
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('Answered without memory.')
      expect(hookContext(bodies()[0])).not.toContain('POWERCONTEXT')
    })
})
