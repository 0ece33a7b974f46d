/**
 * The freshness workflow (test/support/freshness-flow.ts) with the real Codex (`codex exec`) in a
 * trusted project, its sandbox letting it write the workspace: session 1 edits the way the pinned
 * Codex has a model without an `apply_patch` tool edit, `apply_patch` run by `exec_command`; the
 * hooks' context arrives as `developer`-role input; the session id is the thread id `--json` prints.
 */
import { describe, it } from 'vitest'

import { freshnessWorkflow, useFreshnessServer } from '../support/freshness-flow.js'
import { useHostFixture } from '../support/host-fixture.js'
import { type HostRun, runCodex, writeCodexConfig } from '../support/host-runner.js'
import { gitAs, setupWithGitHook } from '../support/host-sessions.js'
import { developerInput } from '../support/responses-server.js'

const fx = useHostFixture('openai', 'pc-freshness-codex-')
const srv = useFreshnessServer(fx)

/** The thread id of a `codex exec --json` run (its `thread.started` event). */
function threadOf(run: HostRun): string {
  for (const line of run.stdout.split('\n')) {
    if (!line.startsWith('{')) continue
    const event = JSON.parse(line) as { type?: string; thread_id?: string }
    if (event.type === 'thread.started' && event.thread_id !== undefined) return event.thread_id
  }
  throw new Error(`no thread.started event: ${run.stdout.slice(0, 500)}`)
}

describe('Codex: a memory learnt from a turn goes stale with a commit and is re-checked', () => {
  it('session 1 learns the retry count; a commit changes the file; session 2 sees the stale mark; the next flush updates it; receipts list what each session got', async () => {
    await freshnessWorkflow(fx, srv, {
      name: 'codex',
      project: async (serverUrl) => {
        const p = fx.project('payments')
        const home = fx.home()
        writeCodexConfig(home, fx.model.url, `[projects."${p.dir}"]\ntrust_level = "trusted"\n`)
        await setupWithGitHook(fx, 'codex', home, serverUrl, p.dir)
        const args = ['--sandbox', 'workspace-write', '--json']
        return {
          ...p,
          git: gitAs(home, p.dir),
          turn: (prompt) =>
            runCodex(prompt, {
              home,
              cwd: p.dir,
              modelUrl: fx.model.url,
              proxyEnv: fx.guard.env(),
              args,
              timeoutMs: 120_000,
            }),
        }
      },
      write: (_dir, file, content) => ({
        tool: 'exec_command',
        input: {
          cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${file}\n${content
            .trimEnd()
            .split('\n')
            .map((l) => `+${l}`)
            .join('\n')}\n*** End Patch\nEOF\n`,
        },
      }),
      sessionOf: threadOf,
      context: (body) => developerInput(body).join('\n'),
    })
  }, 600_000)
})
