/**
 * Memory gets written and comes back, end to end with the real Claude Code (`claude -p`) and no
 * API key of ours: a server with the `claude-code` extraction provider (the real `claude` CLI
 * against a scripted Anthropic server that answers the planner's propose and decide calls), set
 * up in a project by the real `powercontext setup --git-hook`. Session 1 states a preference and
 * a constraint, a commit is made, then a second prompt corrects the preference; each turn's
 * `Stop` capture makes the server flush by itself (debounced). Session 2 (a new session id) gets
 * the current memories in what the model receives — once, under the line naming the scope — and
 * not the corrected version.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import {
  AnthropicMessagesServer,
  type MessagesRequest,
} from '../support/anthropic-messages-server.js'
import { messageText, systemMessages } from '../support/anthropic-server.js'
import { occurrences, useHostFixture } from '../support/host-fixture.js'
import { CLAUDE_BIN } from '../support/host-runner.js'
import { claudeProject, extractionEnv, poster, sessionOf, until } from '../support/host-sessions.js'

const fx = useHostFixture('anthropic', 'pc-claude-memory-')
const extractor = new AnthropicMessagesServer()
let server: RunningServer

/** What the scripted extraction model turns a stated rule into: [pattern, kind, memory text]. */
const RULES: readonly (readonly [RegExp, string, string])[] = [
  [
    /pnpm, not npm/,
    'preference',
    'Package manager: pnpm, not npm — the lockfile is pnpm-lock.yaml.',
  ],
  [/use npm\b/i, 'preference', 'Package manager: npm; run npm test before committing.'],
  [
    /never edit site\//i,
    'constraint',
    'Generated docs: never edit site/ by hand; make docs rebuilds it.',
  ],
]
const [PNPM, NPM, SITE] = RULES.map((r) => r[2]) as [string, string, string]
const topic = (text: string): string => text.slice(0, text.indexOf(':'))

/**
 * The planner's protocol, scripted: the propose call gets one candidate per rule a user prompt
 * states;
 * the decide call updates the related memory of the same topic (the text before `:`), or creates.
 */
function answer(r: MessagesRequest): { json: unknown } {
  // The first user message is the planner's JSON (the CLI may append a reminder after it).
  const user = JSON.parse(r.userText.split('\n')[0] ?? '') as {
    sources?: { source_id: string; kind: string; content: string }[]
    candidates?: { id: string; text: string; related: string[] }[]
    related_memories?: { id: string; text: string }[]
  }
  if (user.sources !== undefined)
    return {
      json: {
        // What the user said: a turn's outcome repeats the task, which is not a new statement.
        candidates: user.sources.flatMap((s) =>
          RULES.filter(([re]) => s.kind === 'prompt' && re.test(s.content)).map(
            ([, kind, text]) => ({
              kind,
              text,
              evidence: [s.source_id],
              observed_at: null,
              reason: null,
            }),
          ),
        ),
      },
    }
  const texts = new Map((user.related_memories ?? []).map((m) => [m.id, m.text]))
  return {
    json: {
      decisions: (user.candidates ?? []).map((c) => {
        const same = c.related.find(
          (id) => !id.startsWith('new:') && topic(texts.get(id) ?? '') === topic(c.text),
        )
        const none = { targets: [], kind: null, text: null, reason: null }
        return same === undefined
          ? { candidate: c.id, action: 'create', ...none }
          : { candidate: c.id, action: 'update', ...none, targets: [same], text: c.text }
      }),
    },
  }
}

beforeAll(async () => {
  const url = await extractor.listen()
  extractor.responder = answer
  const home = fx.home()
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(home.home, 'data'),
    logLevel: 'silent',
    autoFlushDebounceMs: 300,
    extraction: {
      host: {
        kind: 'claude-code',
        settings: {
          command: CLAUDE_BIN,
          env: extractionEnv(fx, home, url),
        },
      },
    },
  })
})
afterAll(async () => {
  await server?.stop()
  await extractor.close()
})

const post = poster(() => server.url)

/** The active memories of a scope, polled until `done` holds (the flush runs by itself). */
const memoriesWhen = (scope: string, done: (texts: string[]) => boolean): Promise<string[]> =>
  until(
    'the memories as expected',
    async () =>
      (
        (await post('/v1/memory/list', { scope_id: scope, limit: 100 }))['memories'] as {
          text: string
        }[]
      ).map((m) => m.text),
    done,
  )

describe('Claude Code: two sessions, memory written automatically with claude -p', () => {
  it('session 1 states and corrects; session 2 receives the current memories, naming the scope', async () => {
    const p = await claudeProject(fx, server.url, 'memory')
    const { turn, git } = p

    // Session 1, first prompt: a preference and a constraint; its Stop triggers the flush.
    fx.model.turns({ text: 'Noted.' })
    const first = await turn(
      'Use npm in this repo and run npm test before committing. Never edit site/ by hand.',
    )
    expect(first.code, first.stderr).toBe(0)
    expect(await memoriesWhen(p.scope, (t) => t.length >= 2)).toEqual(
      expect.arrayContaining([NPM, SITE]),
    )

    // A commit (captured by the post-commit hook), then the correction in the same session.
    writeFileSync(join(p.dir, 'README.md'), '# memory test\n')
    git('add', 'README.md')
    git('commit', '-q', '-m', 'docs: readme')
    fx.model.turns({ text: 'Switched to pnpm.' })
    const second = await turn(
      'Correction: we use pnpm, not npm — the lockfile is pnpm-lock.yaml.',
      ['--resume', sessionOf(first)],
    )
    expect(second.code, second.stderr).toBe(0)
    const after = await memoriesWhen(p.scope, (t) => t.includes(PNPM))
    expect(after.sort()).toEqual([PNPM, SITE].sort())
    const sources = (await post('/v1/sources/list', { scope_id: p.scope, limit: 100 }))[
      'sources'
    ] as { media_type: string }[]
    expect(
      sources.some((s) => s.media_type.includes('git-change')),
      'the commit',
    ).toBe(true)
    // Every extraction call was a structured-output run of the scripted model.
    expect(extractor.requests.length).toBeGreaterThanOrEqual(3)

    // Session 2: a new session gets the current memories once each, under the scope line.
    fx.model.reset()
    // The model searches without naming a scope: the entry's header gives the project's.
    fx.model.turns(
      { tool: 'mcp__powercontext__search_memory', input: { query: 'package manager' } },
      { text: 'Use pnpm.' },
    )
    const third = await turn('Which package manager do I add a dependency with?')
    expect(third.code, third.stderr).toBe(0)
    expect(sessionOf(third)).not.toBe(sessionOf(first))
    const [asked, searched] = fx.model.bodies()
    const results = (searched?.['messages'] as { content: unknown }[]).flatMap((m) =>
      Array.isArray(m.content)
        ? (m.content as { type: string; is_error?: boolean; content?: unknown }[]).filter(
            (b) => b.type === 'tool_result',
          )
        : [],
    )
    expect(results).toHaveLength(1)
    expect(results[0]?.is_error ?? false, messageText(results[0] ?? {})).toBe(false)
    expect(messageText(results[0]!)).toContain('Package manager: pnpm, not npm')
    const context = systemMessages(asked as never).join('\n')
    expect(context).toContain(
      `Project memory of scope ${p.scope} (the scope_id of the PowerContext memory tools).`,
    )
    expect(occurrences(context, PNPM), 'the corrected preference').toBe(1)
    expect(occurrences(context, SITE), 'the constraint').toBe(1)
    expect(context).not.toContain(NPM)
    // The turn's detached Stop worker has captured its outcome (it writes in the HOME until then).
    await until(
      "session 2's outcome captured",
      () => post('/v1/sources/list', { scope_id: p.scope, limit: 100 }),
      (r) => (r['sources'] as { content: string }[]).some((s) => s.content.includes('Use pnpm.')),
    )
  }, 600_000)
})
