import type { Command } from 'commander'

import type { components } from '../contract/powercontext-types.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, EXIT_OK, parseInteger } from './cli-io.js'
import type { RunWithMemory } from './cli-runners.js'
import { opt } from './wire-request.js'

type Wire = components['schemas']
/** The one target of a redact request. */
type RedactTarget = Pick<Wire['RedactRequest'], 'source_id' | 'memory_ref' | 'record_id' | 'scan'>

interface RedactFlags {
  scope: string
  source?: string
  memory?: string
  revision?: number
  record?: string
  scan?: boolean
  reason?: string
  dryRun?: boolean
}

/** The one target the flags name. @throws CliUsageError unless exactly one is given. */
function targetOf(o: RedactFlags): RedactTarget {
  const given = [o.source, o.memory, o.record, o.scan].filter((x) => x !== undefined).length
  if (given !== 1) {
    throw new CliUsageError('give exactly one of --source, --memory, --record or --scan')
  }
  if (o.source !== undefined) return { source_id: o.source }
  if (o.record !== undefined) return { record_id: o.record }
  if (o.memory !== undefined) {
    if (o.revision === undefined) throw new CliUsageError('--memory needs --revision <n>')
    return { memory_ref: { artifact_id: o.memory, revision: o.revision } }
  }
  return { scan: true }
}

/** Lines a person reads: one per item (ids and rules, never text), then what the database did. */
export function redactLines(r: Wire['RedactResponse']): string[] {
  const lines = r.items.map((i) => {
    const what =
      i.target === 'source'
        ? `source ${i.source_id ?? ''}`
        : i.target === 'record'
          ? `decision record ${i.record_id ?? ''}`
          : `version ${i.memory_ref?.artifact_id ?? ''}@${i.memory_ref?.revision ?? ''}`
    const fields = i.fields.length === 0 ? '' : ` in ${i.fields.join(', ')}`
    const found = i.rule === null ? '' : ` (${i.rule}${fields})`
    const seq = i.seq === null ? '' : ` seq ${i.seq}`
    return `${i.status.replace('_', ' ')}: ${what}${found}${seq}`
  })
  if (r.items.length === 0) lines.push(r.dry_run ? 'nothing to redact' : 'nothing redacted')
  const e = r.erasure
  if (e !== null) {
    lines.push(
      e.files_clean
        ? `database files rewritten without the erased bytes (${e.steps.join(', ')}; ${e.ms} ms)`
        : `erased from every row; not yet from every file: ${e.pending ?? 'unknown'}`,
    )
  }
  return lines
}

/**
 * Registers `admin redact`: erases the stored text of a source, one memory version or every
 * secret-rule match of a scope (docs/cli.md, docs/storage.md "Redaction"). Local or `--server-url`.
 */
export function registerRedactCommand(admin: Command, io: CliIo, run: RunWithMemory): void {
  admin
    .command('redact')
    .description(
      'erase stored text (a source, one memory version, one flush decision record, or every secret-rule match with --scan), keeping ids, versions, hashes and the change feed; decision records quoting an erased source or version are erased with it',
    )
    .requiredOption('--scope <id>', 'scope id')
    .option('--source <id>', 'erase this source (content and metadata)')
    .option('--memory <id>', 'erase one version of this memory (with --revision)')
    .option('--revision <n>', 'the version to erase', parseInteger)
    .option('--record <id>', 'erase this flush decision record (its details)')
    .option('--scan', 'erase every stored text the secret rules match')
    .option('--reason <text>', 'recorded with the redaction')
    .option('--dry-run', 'list what would be erased (ids and rules, never text); change nothing')
    .action(async (o: RedactFlags, cmd: Command) =>
      run(cmd, async (call, json) => {
        const r = await call('redact', {
          scope_id: o.scope,
          ...targetOf(o),
          ...opt('reason', o.reason),
          dry_run: o.dryRun === true,
        })
        if (json) io.out(JSON.stringify(r))
        else for (const line of redactLines(r)) io.out(line)
        return EXIT_OK
      }),
    )
}
