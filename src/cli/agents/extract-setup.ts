/**
 * The extraction part of `powercontext setup <host>`: which model turns captured sources into
 * memories (`--extract-with`, default the host being set up when its CLI is on PATH), written to
 * the server settings file of the data directory (`extract_with`), which `server run` reads.
 */
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

import { resolveDataDir } from '../../runtime/data-dir.js'
import { CliUsageError } from '../cli-io.js'
import type { ExtractWith } from '../generation-options.js'
import { EXTRACT_WITH } from '../generation-options.js'
import { updateServerSettingsFile } from '../server-settings-file.js'
import type { AgentHost } from './hosts/index.js'
import { HOST_ADAPTERS } from './hosts/index.js'

/** True when `name` is an executable file in a directory of `PATH`. */
export function onPath(name: string, path: string = process.env['PATH'] ?? ''): boolean {
  return path
    .split(delimiter)
    .filter((d) => d !== '')
    .some((d) => {
      try {
        accessSync(join(d, name), constants.X_OK)
        return true
      } catch {
        return false
      }
    })
}

const WHAT: Readonly<Record<ExtractWith, string>> = {
  'claude-code':
    'the server runs your own `claude -p` (your login and plan, no API key), isolated, at most 120 calls and 1,500,000 tokens a day',
  codex:
    'the server runs your own `codex exec` (your login and plan, no API key), isolated, at most 120 calls and 1,500,000 tokens a day',
  openai:
    'an OpenAI-compatible endpoint: set POWERCONTEXT_SERVER_GENERATION_URL and _MODEL (and _API_KEY) for the server',
  none: 'no model: structured sources and task-outcome working notes only',
}

/**
 * Chooses and writes the extraction provider; returns the line `setup` prints.
 * @throws CliUsageError for an unknown provider.
 */
export async function setupExtraction(
  host: AgentHost,
  given: string | undefined,
  o: { dataDir: string | undefined; dryRun: boolean },
): Promise<string> {
  if (given !== undefined && !(EXTRACT_WITH as readonly string[]).includes(given))
    throw new CliUsageError(`--extract-with must be one of ${EXTRACT_WITH.join(', ')}`)
  // The host's own CLI, when the server can extract with it (its adapter names it).
  const cli = HOST_ADAPTERS[host].extractionCli
  const onHost = cli !== undefined && onPath(cli) ? host : undefined
  const provider = (given ?? onHost) as ExtractWith | undefined
  if (provider === undefined)
    return `extraction  unchanged: ${cli === undefined ? `${HOST_ADAPTERS[host].profile.displayName} has no extraction provider` : `\`${cli}\` is not on PATH`}; pass --extract-with ${EXTRACT_WITH.join('|')} to choose`
  const dataDir = o.dataDir ?? resolveDataDir()
  if (o.dryRun) return `extraction  would be ${provider}: ${WHAT[provider]}`
  const file = await updateServerSettingsFile(dataDir, { extract_with: provider })
  return `extraction  ${provider}: ${WHAT[provider]}; written to ${file} (restart the server to apply; cap or turn off: docs/sources-and-flush.md#budget)`
}
