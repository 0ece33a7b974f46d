import type { Command } from 'commander'

import type { Receipt } from '../core/receipt-rules.js'
import { toWireReceipts } from '../wire/context-wire.js'
import type { CliIo } from './cli-io.js'
import { parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'

/** One receipt as a text block: a head line, then one line per injected memory version. */
export function receiptLines(r: Receipt): string[] {
  const budget = r.withinBudget ? 'whole' : 'cut to fit'
  const head =
    `${r.createdAt}  ${r.host}  ${r.sessionId}  ${r.event}  ${r.kind}  ` +
    `${r.items.length} item(s)  ${r.contentBytes} B ≈${r.tokenEstimate} tokens  ${budget}  ${r.durationMs} ms`
  const items = r.items.map(
    (i) =>
      `    ${i.memoryRef.artifactId}@${i.memoryRef.revision}` +
      `${i.scopeId === r.scopeId ? '' : `  (${i.scopeId})`}${i.truncated ? '  truncated' : ''}`,
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
      run(cmd, async (ops, json) => {
        // `context` has a `--scope` of its own, which takes the option wherever it is written.
        const given: unknown = cmd.parent?.getOptionValue('scope')
        const page = await ops.contextReceipts({
          scopeId: typeof given === 'string' ? given : o.scope,
          sessionId: o.session,
          memoryId: o.memory,
          before: o.before,
          limit: o.limit,
        })
        if (json) {
          io.out(JSON.stringify(toWireReceipts(page)))
          return 0
        }
        if (page.usage !== null) {
          const u = page.usage
          io.out(
            `injected ${u.injections} time(s) in ${u.sessions} session(s), last ${u.lastAt ?? 'never'}`,
          )
        }
        if (page.receipts.length === 0) io.out('no receipts')
        for (const r of page.receipts) io.out(receiptLines(r).join('\n'))
        if (page.nextBefore !== null) io.out(`more: --before ${page.nextBefore}`)
        return 0
      }),
    )
}
