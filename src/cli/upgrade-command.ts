import type { Command } from 'commander'

import type { UpgradeProgress, UpgradeReport } from '../runtime/reference-upgrade.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, collect, EXIT_FAILURE, EXIT_OK } from './cli-io.js'
import type { RunWithRuntime } from './cli-runners.js'
import type { EmbeddingFlags } from './embedding-options.js'
import { addEmbeddingOptions, embeddingSettings } from './embedding-options.js'

/** Least time between two progress lines. */
const PROGRESS_MS = 1000

function mapScopes(pairs: readonly string[] | undefined): Map<string, string> {
  const map = new Map<string, string>()
  for (const pair of pairs ?? []) {
    const at = pair.lastIndexOf('=')
    if (at <= 0 || at === pair.length - 1) {
      throw new CliUsageError(`--map-scope takes OLD=NEW, got ${JSON.stringify(pair)}`)
    }
    map.set(pair.slice(0, at), pair.slice(at + 1))
  }
  return map
}

const n = (v: number): string => v.toLocaleString('en-US')

/** The report as text lines (what a person reads after the run). */
export function formatUpgradeReport(r: UpgradeReport): string[] {
  const lines = [`reference: ${r.origin} (${r.kind})`, `writers: ${r.writeGuard}`]
  for (const note of r.notes) lines.push(`note: ${note}`)
  if (r.outcome === 'refused') {
    lines.push('refused: the reference schema is not one this upgrade knows')
    for (const p of r.refused) lines.push(`  - ${p}`)
    return lines
  }
  const m = r.toMove
  lines.push(
    `to move: ${n(m.scopes)} scopes, ${n(m.entries)} entries → memories (${n(m.versions)} versions, ${n(m.inactive)} forgotten), ${n(m.sources)} sources, ${n(m.cursors)} cursors`,
  )
  if (r.alreadyUpgraded > 0) lines.push(`already upgraded: ${n(r.alreadyUpgraded)} scopes`)
  if (r.normalisedSources > 0) {
    lines.push(
      `normalised: ${n(r.normalisedSources)} source payloads are NFC-normalised in the journal here (their original bytes are kept)`,
    )
  }
  const archived = [
    ...r.archive.map((a) => `${a.count === null ? 'present' : n(a.count)} ${a.what}`),
    ...Object.entries(r.archivedCursors).map(([b, c]) => `${n(c)} ${b} cursors`),
  ]
  if (archived.length > 0) {
    lines.push('left in the archive (no counterpart here; the old tables stay as they are):')
    for (const a of archived) lines.push(`  - ${a}`)
  }
  for (const plan of r.notMoved) {
    const name = JSON.stringify(plan.legacyScopeId)
    lines.push(
      `${plan.status === 'changed' ? 'changed since its upgrade' : 'unmappable'}: scope ${name}`,
    )
    for (const p of plan.problems) lines.push(`  - ${p}`)
  }
  if (r.outcome === 'unmappable') {
    lines.push(
      'refused: some scopes cannot be mapped (above); nothing was written. Fix them, map their ids with --map-scope, or move the rest with --skip-unmappable',
    )
    return lines
  }
  if (r.outcome === 'nothing_to_do') {
    lines.push('nothing to do')
    return lines
  }
  const d = r.moved
  const verb = r.outcome === 'rehearsed' ? 'rehearsed (dry run, rolled back)' : 'upgraded'
  lines.push(
    `${verb}: ${n(d.scopes)} scopes, ${n(d.entries)} memories (${n(d.versions)} versions, ${n(d.inactive)} forgotten), ${n(d.sources)} sources, ${n(d.cursors)} cursors, ${n(d.citations)} old citations mapped`,
  )
  return lines
}

function progressLine(p: UpgradeProgress): string {
  if (p.phase === 'preflight') return `preflight: ${n(p.scopesDone)} scopes read (${p.scope})`
  return `upgrade: scope ${n(p.scopesDone + 1)}/${n(p.scopesTotal ?? 0)} ${p.scope}: ${n(p.versions)} versions, ${n(p.sources)} sources written`
}

/**
 * Registers `admin upgrade-from-reference --from PATH|mysql://… [--dry-run] [--map-scope OLD=NEW]
 * [--skip-unmappable]` (docs/upgrade.md). Exit 0 when everything that was found moved (or was
 * upgraded before), 1 when the preflight refused or something was left, 2 for usage errors.
 */
export function registerUpgradeCommand(admin: Command, io: CliIo, run: RunWithRuntime): void {
  addEmbeddingOptions(
    admin
      .command('upgrade-from-reference')
      .description(
        'move a database of the Python reference (SQLite file or mysql:// URL) into this one: preflight, then one transaction per scope; the old tables stay untouched',
      )
      .requiredOption(
        '--from <path|url>',
        'the reference database: its SQLite file or a mysql:// URL',
      )
      .option('--dry-run', 'preflight and rehearse every scope, then roll back: nothing is written')
      .option(
        '--map-scope <old=new>',
        'give an old scope id that is not valid here a new id (repeatable)',
        collect,
      )
      .option('--skip-unmappable', 'move the scopes that map and leave the unmappable ones'),
  ).action(
    async (
      o: EmbeddingFlags & {
        from: string
        dryRun?: boolean
        mapScope?: string[]
        skipUnmappable?: boolean
      },
      cmd: Command,
    ) =>
      run(
        cmd,
        async (rt, json) => {
          let last = 0
          const report = await rt.upgradeFromReference(o.from, {
            dryRun: o.dryRun === true,
            mapScopes: mapScopes(o.mapScope),
            skipUnmappable: o.skipUnmappable === true,
            onProgress: (p) => {
              const now = Date.now()
              if (now - last < PROGRESS_MS) return
              last = now
              io.err(progressLine(p))
            },
          })
          let verified: Awaited<ReturnType<typeof rt.verify>> | undefined
          if (report.outcome === 'upgraded') verified = await rt.verify()
          if (json) io.out(JSON.stringify({ ...report, verify: verified ?? null }))
          else {
            for (const line of formatUpgradeReport(report)) io.out(line)
            if (verified !== undefined) {
              io.out(`verify: ${verified.ok ? 'ok' : 'FAILED'}`)
              for (const p of verified.problems) io.out(`  - ${p}`)
            }
          }
          const clean =
            (report.outcome === 'upgraded' ||
              report.outcome === 'rehearsed' ||
              report.outcome === 'nothing_to_do') &&
            report.notMoved.every((p) => o.skipUnmappable === true && p.status === 'blocked')
          return clean && verified?.ok !== false ? EXIT_OK : EXIT_FAILURE
        },
        () => ({ embedding: embeddingSettings(o) }),
      ),
  )
}
