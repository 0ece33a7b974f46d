import type { Command } from 'commander'

import type { components } from '../contract/powercontext-types.js'
import type { CliIo } from './cli-io.js'
import { parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'
import { opt } from './wire-request.js'

type Receipt = components['schemas']['Receipt']

/** One receipt as a text block: a head line, then one line per injected memory version. */
export function receiptLines(r: Receipt): string[] {
  const budget = r.within_budget ? 'whole' : 'cut to fit'
  const head =
    `${r.created_at}  ${r.host}  ${r.session_id}  ${r.event}  ${r.kind}  ` +
    `${r.items.length} item(s)  ${r.content_bytes} B ≈${r.token_estimate} tokens  ${budget}  ${r.duration_ms} ms`
  const items = r.items.map(
    (i) =>
      `    ${i.memory_ref.artifact_id}@${i.memory_ref.revision}` +
      `${i.scope_id === r.scope_id ? '' : `  (${i.scope_id})`}${i.truncated ? '  truncated' : ''}`,
  )
  return [head, ...items]
}

/**
 * `powercontext context log [--session ID] [--memory ID]`: the receipts of a scope, newest first
 * — what prepared context gave each agent session (docs/cli.md). Refs only, never text.
 */
export function registerContextLog(context: Command, io: CliIo, run: RunWithMemory): void {
  context
    .command('log')
    .description('what prepared context gave each agent session (receipts), newest first')
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option('--session <id>', "only this session's receipts")
    .option('--memory <id>', 'only the receipts that injected this memory, and its usage')
    .option('--limit <n>', 'receipts per page, 1–200 (default 50)', parseInteger)
    .option('--before <cursor>', 'the next page: the cursor printed at the end of the last one')
    .action(async (o, cmd: Command) =>
      run(cmd, async (call, json) => {
        // `context` has a `--scope` of its own, which takes the option wherever it is written.
        const given: unknown = cmd.parent?.getOptionValue('scope')
        const page = await call('contextReceipts', {
          scope_id: typeof given === 'string' ? given : o.scope,
          ...opt('session_id', o.session as string | undefined),
          ...opt('memory_id', o.memory as string | undefined),
          ...opt('before', o.before as string | undefined),
          ...opt('limit', o.limit as number | undefined),
        })
        if (json) {
          io.out(JSON.stringify(page))
          return 0
        }
        if (page.usage !== null) {
          const u = page.usage
          io.out(
            `injected ${u.injections} time(s) in ${u.sessions} session(s), last ${u.last_at ?? 'never'}`,
          )
        }
        if (page.receipts.length === 0) io.out('no receipts')
        for (const r of page.receipts) io.out(receiptLines(r).join('\n'))
        if (page.next_before !== null) io.out(`more: --before ${page.next_before}`)
        return 0
      }),
    )
}
