/**
 * Freshness over HTTP on a real server (docs/agents.md "Freshness"): a task outcome and a later
 * commit captured through `POST /v1/sources/content` as the hooks and `capture git` send them; the
 * search hit and the get response of the anchored memory carry `stale` as the contract declares
 * it, the recall names the commit in the item, and a memory without anchors carries nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises'

import { expect, it } from 'vitest'

import { createPowerContextClient } from '../../src/client/index.js'
import { TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE, gitChangeSource } from '../../src/core/git-change.js'
import { assertMatchesContract } from '../support/contract-assert.js'
import { useTempServer } from '../support/temp-server.js'

const temp = useTempServer('pc-freshness-http-')
const LATER = 'f'.repeat(40)

it('search, get and prepare carry the stale mark of an anchored memory only', async () => {
  const client = createPowerContextClient({ baseUrl: temp.server.url })
  const scope_id = 'git:example.org/acme/freshness-http'
  await client.captureContent({
    scope_id,
    source_id: 'claude-code-task-outcome:1',
    content: JSON.stringify({
      task: 'payments',
      outcome: 'turn ended',
      summary: 'payments retry 3 times',
      changed_paths: ['src/payments/retry.ts'],
      git_head: 'a'.repeat(40),
    }),
    media_type: TASK_OUTCOME_MEDIA_TYPE,
  })
  const remembered = await client.remember({
    scope_id,
    entries: [
      {
        kind: 'decision',
        text: 'Payments retry: a failed charge is retried 3 times.',
        sources: [{ name: 'content', source_id: 'claude-code-task-outcome:1' }],
      },
      { kind: 'decision', text: 'Payments retry: charges are logged before each retry.' },
    ],
  })
  const [anchored, plain] = remembered.results.map((r) => r.memory.memory_ref.artifact_id)
  await sleep(5)
  const commit = gitChangeSource({
    commit: LATER,
    parents: ['a'.repeat(40)],
    authorDate: '2026-12-01T10:00:00+00:00',
    message: 'retry five times',
    paths: [{ status: 'M', path: 'src/payments/retry.ts', additions: 1, deletions: 1 }],
  })
  await client.captureContent({
    scope_id,
    source_id: commit.sourceId,
    content: commit.content,
    media_type: GIT_CHANGE_MEDIA_TYPE,
    metadata: { ...commit.metadata },
  })

  const search = await client.search({ scope_id, query: 'payments retry' })
  assertMatchesContract('search', 200, search)
  const stale = new Map(search.hits.map((h) => [h.memory_ref.artifact_id, h.stale]))
  expect(stale.get(anchored!)).toEqual({
    commits: [{ commit: LATER, paths: ['src/payments/retry.ts'], captured_at: expect.any(String) }],
  })
  expect(stale.has(plain!)).toBe(true)
  expect(stale.get(plain!)).toBeUndefined()

  const got = await client.get({ scope_id, memory_id: anchored! })
  assertMatchesContract('get', 200, got)
  expect(got.stale?.commits[0]?.commit).toBe(LATER)
  expect((await client.get({ scope_id, memory_id: plain! })).stale).toBeUndefined()

  const prepared = await client.prepareContext({ scope_id, query: 'payments retry' })
  expect(prepared.content).toContain(`changed in commit ${LATER.slice(0, 12)}`)
  expect(prepared.content?.match(/"stale":/g)).toHaveLength(1)
})
