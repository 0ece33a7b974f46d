/**
 * The freshness workflow (test/support/freshness-flow.ts) with the real Claude Code (`claude -p`):
 * session 1 edits with Claude Code's Write tool (edits allowed by `--permission-mode acceptEdits`);
 * the hooks' context arrives as `role: "system"` messages.
 */
import { describe, it } from 'vitest'

import { systemMessages } from '../support/anthropic-server.js'
import { freshnessWorkflow, useFreshnessServer } from '../support/freshness-flow.js'
import { useHostFixture } from '../support/host-fixture.js'
import { claudeProject, sessionOf } from '../support/host-sessions.js'

const fx = useHostFixture('anthropic', 'pc-freshness-claude-')
const srv = useFreshnessServer(fx)

describe('Claude Code: a memory learnt from a turn goes stale with a commit and is re-checked', () => {
  it('session 1 learns the retry count; a commit changes the file; session 2 sees the stale mark; the next flush updates it; receipts list what each session got', async () => {
    await freshnessWorkflow(fx, srv, {
      name: 'claude-code',
      project: async (serverUrl) => {
        const p = await claudeProject(fx, serverUrl, 'payments')
        return { ...p, turn: (prompt) => p.turn(prompt, ['--permission-mode', 'acceptEdits']) }
      },
      write: (dir, file, content) => ({
        tool: 'Write',
        input: { file_path: `${dir}/${file}`, content },
      }),
      sessionOf,
      context: (body) => systemMessages(body).join('\n'),
    })
  }, 600_000)
})
