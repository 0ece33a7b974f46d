import type { Command } from 'commander'

import type { CliIo } from './cli-io.js'
import { collect, parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { registerContextLog } from './context-log.js'
import { SCOPE_OPTION_HELP } from './project-scope.js'
import { opt } from './wire-request.js'

/**
 * `powercontext context --scope S [--extra-scope X]… [--max-bytes N] [QUERY…]`: prints the
 * prepared context an agent hook would inject (docs/cli.md), locally or through `--server-url`.
 * Without a query it is the session-start brief. `--json` prints the v1 envelope.
 */
export function registerContextCommand(program: Command, io: CliIo, run: RunWithMemory): void {
  const context = program.command('context')
  context
    .description(
      'print the prepared context an agent hook would inject for QUERY (without one: the session brief)',
    )
    .option('--scope <id>', SCOPE_OPTION_HELP)
    .option(
      '--extra-scope <id>',
      'another scope read with it, e.g. user:<name> (repeatable)',
      collect,
    )
    .option('--max-bytes <n>', 'UTF-8 budget, 512–32768 (default 8000)', parseInteger)
    .argument('[query...]', 'what to recall (e.g. the prompt); omit for the brief')
    .action(async (words: string[], o, cmd: Command) =>
      run(cmd, async (call, json) => {
        const r = await call('prepareContext', {
          scope_id: o.scope,
          ...opt('scope_ids', o.extraScope as string[] | undefined),
          ...opt('query', words.length === 0 ? undefined : words.join(' ')),
          ...opt('max_bytes', o.maxBytes as number | undefined),
        })
        if (json) io.out(JSON.stringify(r))
        else if (r.content === null) io.out('empty: no memory to prepare')
        else io.out(r.content)
        return 0
      }),
    )
  registerContextLog(context, io, run)
}
