/**
 * The Stop hook as `setup` installs it: `--detach` (or, on POSIX hosts, the shell entry
 * integrations/shared/hook-detach.sh) hands the payload to a background worker and exits at once, the worker captures (the turn's prompt too in the http form, where the server's
 * route answers UserPromptSubmit and captures nothing), and a prompt carrying a credential is
 * still never sent. Real hook processes against a real server on loopback.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { describe, expect, it } from 'vitest'

import { useHookFixture } from '../support/hook-fixture.js'
import { runHookProcess, runProgram } from '../support/hook-harness.js'

const SCOPE = 'git:github.com/acme/detach'
const fx = useHookFixture('claude-code', {
  origin: 'git@github.com:acme/detach.git',
  scopeId: SCOPE,
  memories: [{ kind: 'decision', text: 'Refunds go through the ledger service.' }],
})
const { base, repo, hook: HOOK } = fx
const STATE = join(base, 'hook-state')

let n = 0
/** A transcript whose last user message is `prompt`, and the Stop payload that names it. */
function stopPayload(prompt: string, reply: string): Record<string, unknown> {
  const file = join(base, `t${++n}.jsonl`)
  const line = (role: string, text: string) =>
    JSON.stringify({ type: role, message: { role, content: [{ type: 'text', text }] } })
  writeFileSync(file, `${line('user', prompt)}\n${line('assistant', reply)}\n`)
  return {
    session_id: `detach-${n}`,
    transcript_path: file,
    cwd: repo,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: reply,
  }
}

/** The sources once `count` of them hold `text` (the worker runs after the hook exited). */
async function sourcesWith(text: string, count = 1): Promise<{ content: string }[]> {
  const until = Date.now() + 15_000
  for (;;) {
    const all = await fx.sources()
    if (all.filter((s) => s.content.includes(text)).length >= count || Date.now() > until)
      return all
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('Stop --detach', () => {
  it('exits with nothing printed; its worker captures the outcome and removes the payload file', async () => {
    const env = fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_STATE_DIR: STATE })
    // A payload file no worker took, two hours old: removed by the next hand-over.
    const pending = join(STATE, 'pending')
    mkdirSync(pending, { recursive: true, mode: 0o700 })
    const stale = join(pending, 'stale.json')
    writeFileSync(stale, '{}', { mode: 0o600 })
    utimesSync(stale, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000))
    const run = await runHookProcess(HOOK, stopPayload('Add refunds', 'Refunds added.'), env, [
      '--detach',
    ])
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const all = await sourcesWith('Refunds added.')
    const outcome = all.find((s) => s.content.includes('Refunds added.'))
    expect(JSON.parse(outcome!.content)).toMatchObject({ task: 'Add refunds' })
    // The command form's prompt hook captured the prompt: Stop does not capture it again.
    expect(all.some((s) => s.content === 'Add refunds')).toBe(false)
    expect(existsSync(pending) ? readdirSync(pending) : []).toEqual([])
  })

  it('in the http form captures the prompt too, never one carrying a credential', async () => {
    const env = fx.envFor(fx.server.url, {
      POWERCONTEXT_HOOKS_STATE_DIR: STATE,
      POWERCONTEXT_HOOKS_FORM: 'http',
    })
    const plain = 'How are refunds retried?'
    await runHookProcess(HOOK, stopPayload(plain, 'Retried with backoff.'), env, ['--detach'])
    const secret = 'Use the sandbox, password is Winter2024x'
    await runHookProcess(HOOK, stopPayload(secret, 'Sandbox noted.'), env, ['--detach'])
    await sourcesWith('Sandbox noted.')
    const all = await sourcesWith('Retried with backoff.')
    expect(all.filter((s) => s.content === plain)).toHaveLength(1)
    expect(JSON.stringify(all)).not.toContain('Winter2024x')
    expect(all.some((s) => s.content.includes('Sandbox noted.'))).toBe(true)
  })

  it('runs in place when the payload cannot be handed over (no state directory)', async () => {
    const env = fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_STATE_DIR: 'relative/dir' })
    const run = await runHookProcess(HOOK, stopPayload('Inline turn', 'Ran in place.'), env, [
      '--detach',
    ])
    expect(run.code).toBe(0)
    // In place: captured before the process exited.
    expect((await fx.sources()).some((s) => s.content.includes('Ran in place.'))).toBe(true)
  })
})

describe('Stop through the POSIX shell entry', () => {
  const SH = fileURLToPath(new URL('../../integrations/shared/hook-detach.sh', import.meta.url))
  const state = join(base, 'sh-state')
  const modes = join(base, 'sh-modes')
  // The real Node behind a wrapper that notes the payload file's and its directory's modes when
  // the worker starts (the worker removes the file first thing).
  const node = join(base, 'node-noting-modes.sh')
  writeFileSync(
    node,
    `#!/bin/sh\n[ "$2" = --worker ] && stat -c %a "$3" "\${3%/*}" > '${modes}'\nexec '${process.execPath}' "$@"\n`,
  )
  chmodSync(node, 0o755)

  it('hands the payload to the worker in a 0600 file of a 0700 directory, printing nothing', async () => {
    const env = fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_STATE_DIR: state })
    const payload = stopPayload('Ship refunds', 'Refunds shipped via sh.')
    const run = await runProgram('sh', [SH, node, HOOK], payload, env)
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
    const outcome = (await sourcesWith('Refunds shipped via sh.')).find((s) =>
      s.content.includes('Refunds shipped via sh.'),
    )
    expect(JSON.parse(outcome!.content)).toMatchObject({ task: 'Ship refunds' })
    expect(readFileSync(modes, 'utf8').split('\n').filter(Boolean)).toEqual(['600', '700'])
    expect(readdirSync(join(state, 'pending'))).toEqual([])
  })

  it('fails open when the state directory cannot be made: runs in place, exit 0', async () => {
    const blocker = join(base, 'not-a-dir')
    writeFileSync(blocker, '')
    const env = fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_STATE_DIR: join(blocker, 'state') })
    const payload = stopPayload('Inline sh turn', 'Ran in place via sh.')
    const run = await runProgram('sh', [SH, process.execPath, HOOK], payload, env)
    expect(run.code).toBe(0)
    // In place: captured before the process exited.
    expect((await fx.sources()).some((s) => s.content.includes('Ran in place via sh.'))).toBe(true)
  })

  it('exits 0 with nothing printed when even Node cannot be started', async () => {
    const env = fx.envFor(fx.server.url, { POWERCONTEXT_HOOKS_STATE_DIR: 'relative/dir' })
    const run = await runProgram('sh', [SH, join(base, 'no-such-node'), HOOK], '{}', env)
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' })
  })
})
