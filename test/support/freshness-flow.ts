/**
 * The freshness workflow (docs/agents.md "The workflow, step by step"), driven through a real host
 * by `test/hosts/freshness-workflow*.test.ts`: a `powercontext server run` child that extracts with
 * the `claude-code` provider (the real `claude` CLI against a scripted Anthropic server answering
 * the propose, decide and re-check calls), a project set up by the real `setup --git-hook`;
 * session 1 edits `src/payments/retry.ts` with the host's edit tool and its turn's outcome becomes
 * the memory "retried 3 times (src/payments/retry.ts)", anchored to that path; a later commit
 * changes the file (captured by the post-commit hook); session 2's recall carries the memory
 * marked possibly stale with that commit; the flush after session 2's turn re-checks it and writes
 * a new version; the receipts of both sessions list exactly the refs their hooks gave the model.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { afterAll, beforeAll, expect } from 'vitest'

import type { ServerProcess } from '../../harness/server-process.js'
import {
  AnthropicMessagesServer,
  type MessagesRequest,
  type MessagesStep,
} from './anthropic-messages-server.js'
import type { HostFixture, StoredSource, TestProject } from './host-fixture.js'
import { CLAUDE_BIN, type HostRun } from './host-runner.js'
import { extractionEnv, poster, until } from './host-sessions.js'
import type { ModelReply } from './model-turns.js'

export const PATH = 'src/payments/retry.ts'
const STANDING = 'Prefer table-driven tests over one test per case in the payments code.'
/** The memory the scripted extraction model writes for a retry count read from a turn or commit. */
const retryMemory = (n: string): string =>
  `Payments retry: a failed charge is retried ${n} times (${PATH}).`
const RETRY_COUNT = /retr(?:y|ied) (\d+) times/i

interface PlannerInput {
  sources?: { source_id: string; kind: string; content: string }[]
  candidates?: { id: string }[]
  memories?: { id: string; text: string; commits: { commit: string; subject: string }[] }[]
}

/**
 * The planner's protocol, scripted. Propose: a turn's outcome whose changed paths name the retry
 * file and whose summary states a retry count becomes a fact citing it. Decide: create. Re-check:
 * a memory whose commits state a new retry count is updated to it, any other is kept.
 */
function answer(r: MessagesRequest): MessagesStep {
  // The first user message is the planner's JSON (the CLI may append a reminder after it).
  const user = JSON.parse(r.userText.split('\n')[0] ?? '') as PlannerInput
  if (user.memories !== undefined)
    return {
      json: {
        checks: user.memories.map((m) => {
          const n = m.commits.map((c) => RETRY_COUNT.exec(c.subject)?.[1]).find(Boolean)
          const none = { kind: null, text: null }
          return n === undefined
            ? { memory: m.id, action: 'keep', ...none, reason: null }
            : { memory: m.id, action: 'update', kind: 'fact', text: retryMemory(n), reason: 'c' }
        }),
      },
    }
  if (user.sources !== undefined)
    return {
      json: {
        candidates: user.sources.flatMap((s) => {
          if (s.kind !== 'task_outcome') return []
          const o = JSON.parse(s.content) as { summary: string; changed_paths?: string[] }
          const n = RETRY_COUNT.exec(o.summary)?.[1]
          if (n === undefined || !(o.changed_paths ?? []).includes(PATH)) return []
          const text = retryMemory(n)
          return [{ kind: 'fact', text, evidence: [s.source_id], observed_at: null, reason: null }]
        }),
      },
    }
  return {
    json: {
      decisions: (user.candidates ?? []).map((c) => {
        const none = { targets: [], kind: null, text: null, reason: null }
        return { candidate: c.id, action: 'create', ...none }
      }),
    },
  }
}

/** The server of a workflow file and its scripted extraction model. */
export interface FreshnessServer {
  readonly url: string
  readonly extractor: AnthropicMessagesServer
}

/**
 * Registers (beforeAll/afterAll) a server child of the fixture that extracts with `claude -p`
 * against a scripted extraction model speaking the planner's protocol.
 */
export function useFreshnessServer(fx: HostFixture): FreshnessServer {
  const extractor = new AnthropicMessagesServer()
  let server: ServerProcess | undefined
  beforeAll(async () => {
    const url = await extractor.listen()
    extractor.responder = answer
    const extractHome = fx.home()
    server = await fx.startServer({
      POWERCONTEXT_HOME: join(extractHome.home, 'powercontext'),
      POWERCONTEXT_SERVER_EXTRACT_WITH: 'claude-code',
      POWERCONTEXT_SERVER_EXTRACT_COMMAND: CLAUDE_BIN,
      // What the server's `claude -p` runs see: a home of their own and the scripted model.
      ...extractionEnv(fx, extractHome, url),
    })
  })
  afterAll(async () => {
    await extractor.close()
  })
  return {
    get url() {
      return server!.url
    },
    extractor,
  }
}

/** How the workflow drives one host. */
export interface FlowHost {
  /** The receipts' `host`. */
  readonly name: string
  /** A new project set up for the host with the git hook against `serverUrl`, and how to work in it. */
  project(serverUrl: string): Promise<
    TestProject & {
      turn: (prompt: string) => Promise<HostRun>
      git: (...args: string[]) => string
    }
  >
  /** The scripted reply that writes `content` to `file` (relative to `dir`) with the host's edit tool. */
  write(dir: string, file: string, content: string): ModelReply
  /** The session id a turn reports. */
  sessionOf(run: HostRun): string
  /** The text the hooks added to a request of the host. */
  context(body: Record<string, unknown> | undefined): string
}

interface Listed {
  memory_ref: { artifact_id: string; revision: number }
  text: string
  sources: { source_id: string }[]
}
interface Got {
  memory: Listed
  current_revision: number
  stale?: { commits: { commit: string; paths: string[] }[] }
}
interface Receipt {
  session_id: string
  host: string
  event: string
  items: { memory_ref: { artifact_id: string; revision: number } }[]
}

/** The refs (`id@revision`) the rendered items of hook context cite, each once. */
const citedRefs = (context: string): string[] =>
  [
    ...new Set(
      [...context.matchAll(/"artifact_id":"([^"]+)","revision":(\d+)/g)].map(
        (m) => `${m[1]}@${m[2]}`,
      ),
    ),
  ].sort()

/** Runs the workflow (see the module comment) with `host`, asserting every step. */
export async function freshnessWorkflow(
  fx: HostFixture,
  srv: FreshnessServer,
  host: FlowHost,
): Promise<void> {
  const post = poster(() => srv.url)
  const memories = async (scope: string): Promise<Listed[]> =>
    (await post('/v1/memory/list', { scope_id: scope, limit: 100 }))['memories'] as Listed[]
  const sources = async (scope: string): Promise<StoredSource[]> =>
    (await post('/v1/sources/list', { scope_id: scope, limit: 100 }))['sources'] as StoredSource[]
  const getMemory = async (scope: string, id: string): Promise<Got> =>
    (await post('/v1/memory/get', { scope_id: scope, memory_id: id })) as unknown as Got

  /** A session's receipts and the refs they list, each once. */
  async function receipts(
    scope: string,
    session: string,
  ): Promise<{ all: Receipt[]; refs: string[] }> {
    const all = (await post('/v1/context/receipts', { scope_id: scope, session_id: session }))[
      'receipts'
    ] as Receipt[]
    const refs = all.flatMap((r) =>
      r.items.map((i) => `${i.memory_ref.artifact_id}@${i.memory_ref.revision}`),
    )
    return { all, refs: [...new Set(refs)].sort() }
  }

  const p = await host.project(srv.url)
  const { git, turn } = p
  writeFileSync(join(p.dir, 'README.md'), '# payments\n')
  mkdirSync(join(p.dir, 'src', 'payments'), { recursive: true })
  git('add', 'README.md')
  git('commit', '-q', '-m', 'initial')
  const initial = git('rev-parse', 'HEAD')
  await post('/v1/memory/remember', {
    scope_id: p.scope,
    entries: [{ kind: 'preference', text: STANDING }],
  })

  // Session 1: the model writes the retry file; the turn's outcome names the path and HEAD.
  fx.model.turns(host.write(p.dir, PATH, 'export const MAX_RETRIES = 3\n'), {
    text: `Failed payments now retry 3 times (${PATH}).`,
  })
  const first = await turn('Make failed payments retry 3 times.')
  expect(first.code, first.stderr).toBe(0)
  expect(readFileSync(join(p.dir, PATH), 'utf8'), 'the edit').toContain('= 3')
  const session1 = host.sessionOf(first)
  const context1 = host.context(fx.model.bodies()[0])
  const [learnt] = await until(
    'the retry memory',
    () => memories(p.scope),
    (ms) => ms.some((m) => m.text === retryMemory('3')),
  ).then((ms) => ms.filter((m) => m.text === retryMemory('3')))
  const memoryId = learnt!.memory_ref.artifact_id
  // Its evidence is the turn's outcome, which names the file it is anchored to and HEAD.
  const all1 = await sources(p.scope)
  const evidence = all1.filter((s) =>
    learnt!.sources.some((r) => r.source_id === s.source.source_id),
  )
  expect(evidence.map((s) => s.media_type)).toEqual([
    'application/vnd.powercontext.task-outcome+json',
  ])
  expect(JSON.parse(evidence[0]!.content)).toMatchObject({
    changed_paths: [PATH],
    git_head: initial,
  })
  expect((await getMemory(p.scope, memoryId)).stale, 'fresh after session 1').toBeUndefined()

  // A later commit changes the file; the post-commit hook captures it.
  writeFileSync(join(p.dir, PATH), 'export const MAX_RETRIES = 5\n')
  git('add', PATH)
  git('commit', '-q', '-m', 'payments: retry 5 times')
  const commit = git('rev-parse', 'HEAD')
  await until(
    'the commit captured',
    () => sources(p.scope),
    (all) => all.some((s) => s.metadata['commit'] === commit),
  )
  const marked = await getMemory(p.scope, memoryId)
  expect(marked.stale?.commits).toEqual([expect.objectContaining({ commit, paths: [PATH] })])

  // Session 2: the recall carries the memory with the stale mark naming the commit.
  fx.model.reset()
  fx.model.turns({ text: `The memory says 3, marked possibly stale; ${PATH} now says 5.` })
  const second = await turn('How many times do failed payments retry?')
  expect(second.code, second.stderr).toBe(0)
  const session2 = host.sessionOf(second)
  expect(session2).not.toBe(session1)
  const context2 = host.context(fx.model.bodies()[0])
  expect(context2).toContain(retryMemory('3'))
  expect(context2).toContain(
    `possibly stale: ${PATH} changed in commit ${commit.slice(0, 12)} after this memory was written`,
  )

  // The flush after session 2's turn re-checks the memory against the commit: a new version.
  const updated = await until(
    'the re-checked memory',
    () => getMemory(p.scope, memoryId),
    (g) => g.current_revision === 2,
  )
  expect(updated.memory.text).toBe(retryMemory('5'))
  expect(updated.stale).toBeUndefined()
  expect((await memories(p.scope)).map((m) => m.text).sort()).toEqual(
    [STANDING, retryMemory('5')].sort(),
  )
  const recheck = srv.extractor.structuredRequests.filter((r) =>
    r.systemText.includes('true to the code'),
  )
  expect(recheck).toHaveLength(1)
  expect(recheck[0]!.userText).toContain(commit)
  const search = await post('/v1/memory/search', { scope_id: p.scope, query: 'payments retry' })
  const hit = (search['hits'] as (Listed & { stale?: unknown })[]).find(
    (h) => h.memory_ref.artifact_id === memoryId,
  )
  expect(hit?.memory_ref.revision).toBe(2)
  expect(hit?.stale).toBeUndefined()

  // The receipts: exactly the refs each session's hooks put in front of the model.
  const r1 = await receipts(p.scope, session1)
  const r2 = await receipts(p.scope, session2)
  expect(r1.all.length).toBeGreaterThan(0)
  expect(r2.all.length).toBeGreaterThan(0)
  for (const r of [...r1.all, ...r2.all]) expect(r.host).toBe(host.name)
  const standing = (await memories(p.scope)).find((m) => m.text === STANDING)!
  const standingRef = `${standing.memory_ref.artifact_id}@${standing.memory_ref.revision}`
  expect(citedRefs(context1)).toEqual([standingRef])
  expect(r1.refs).toEqual([standingRef])
  expect(citedRefs(context2)).toEqual([standingRef, `${memoryId}@1`].sort())
  expect(r2.refs).toEqual([standingRef, `${memoryId}@1`].sort())
}
