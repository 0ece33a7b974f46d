import type { Command } from 'commander'

import type { GenerationSettings } from '../runtime/chat-model.js'
import type { ExtractionOptions } from '../runtime/extraction.js'
import type { HostProviderKind } from '../runtime/host-providers.js'
import { CliUsageError } from './cli-io.js'

/** Environment prefix of the generation model settings (shared by `server run` and `flush`). */
const ENV = 'POWERCONTEXT_SERVER_GENERATION_'

const env = (name: string): string | undefined => {
  const v = process.env[name]
  return v === undefined || v === '' ? undefined : v
}

function envInteger(name: string): number | undefined {
  const v = env(name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v) || Number(v) < 1)
    throw new CliUsageError(`${name} must be a positive integer`)
  return Number(v)
}

/** The generation flags as commander hands them over. */
export interface GenerationFlags {
  generationUrl?: string
  generationModel?: string
  extractWith?: string
  extractModel?: string
  extractCallsPerDay?: number
  extractTokensPerDay?: number
}

/**
 * The hosts whose CLI can extract: every row of the runtime's `HOST_PROVIDERS` (a missing or
 * unknown one is a compile error here; the runtime itself loads only when a command needs it).
 */
const HOST_EXTRACTOR_ROWS: Readonly<Record<HostProviderKind, true>> = {
  'claude-code': true,
  codex: true,
}
const HOST_EXTRACTORS = Object.keys(HOST_EXTRACTOR_ROWS) as HostProviderKind[]
const isHostExtractor = (p: string): p is HostProviderKind => Object.hasOwn(HOST_EXTRACTOR_ROWS, p)

/** The providers `--extract-with` names. */
export const EXTRACT_WITH = [...HOST_EXTRACTORS, 'openai', 'none'] as const
export type ExtractWith = (typeof EXTRACT_WITH)[number]

const EXTRACT = 'POWERCONTEXT_SERVER_EXTRACT_'

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new CliUsageError(`expected a whole number, got ${value}`)
  return Number(value)
}

function envWhole(name: string): number | undefined {
  const v = env(name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new CliUsageError(`${name} must be a whole number`)
  return Number(v)
}

/** Adds `--generation-url/-model` (env `POWERCONTEXT_SERVER_GENERATION_*`). */
export function addGenerationOptions(command: Command): Command {
  return command
    .option(
      '--generation-url <url>',
      `OpenAI-compatible chat completions server for flush extraction (env ${ENV}URL)`,
    )
    .option('--generation-model <model>', `generation model id (env ${ENV}MODEL)`)
    .option(
      '--extract-with <provider>',
      `extraction model: claude-code (your claude -p), codex (your codex exec), openai (--generation-url), none (env ${EXTRACT}WITH)`,
    )
    .option(
      '--extract-model <model>',
      `model for claude-code / codex, e.g. haiku (default: the CLI's own; env ${EXTRACT}MODEL)`,
    )
    .option(
      '--extract-calls-per-day <n>',
      `daily cap of provider calls, 0 = none (claude-code/codex default 120; env ${EXTRACT}CALLS_PER_DAY)`,
      wholeNumber,
    )
    .option(
      '--extract-tokens-per-day <n>',
      `daily cap of provider tokens, 0 = none (claude-code/codex default 1500000; env ${EXTRACT}TOKENS_PER_DAY)`,
      wholeNumber,
    )
}

/** The provider a command extracts with: flag, env, else `openai` when a URL is set, else none. */
function extractWith(flags: GenerationFlags, hasUrl: boolean): ExtractWith {
  const v = flags.extractWith ?? env(`${EXTRACT}WITH`)
  if (v === undefined) return hasUrl ? 'openai' : 'none'
  if (!(EXTRACT_WITH as readonly string[]).includes(v))
    throw new CliUsageError(`--extract-with must be one of ${EXTRACT_WITH.join(', ')}`)
  return v as ExtractWith
}

/**
 * The generation settings of a command: flags, else `POWERCONTEXT_SERVER_GENERATION_URL` and
 * `..._MODEL` (both or neither: without them flush uses structured candidates only). The API key
 * is read from `POWERCONTEXT_SERVER_GENERATION_API_KEY` at request time; `..._TIMEOUT_MS`
 * (default 30 000) and `..._MAX_REQUESTS` (default 2, retries included) tune requests.
 * @throws CliUsageError when only one of url and model is given.
 */
export function generationSettings(flags: GenerationFlags): GenerationSettings | undefined {
  const url = flags.generationUrl ?? env(`${ENV}URL`)
  const model = flags.generationModel ?? env(`${ENV}MODEL`)
  if (url === undefined && model === undefined) return undefined
  if (url === undefined || model === undefined)
    throw new CliUsageError(
      `generation settings go together: missing --generation-${url === undefined ? 'url' : 'model'}`,
    )
  return {
    url,
    model,
    apiKeyEnv: `${ENV}API_KEY`,
    timeoutMs: envInteger(`${ENV}TIMEOUT_MS`),
    maxRequests: envInteger(`${ENV}MAX_REQUESTS`),
  }
}

/**
 * Extraction options of a command: the provider (`--extract-with`: the user's `claude -p` or
 * `codex exec`, an OpenAI-compatible endpoint, or none), its budget, and the poison limit
 * `POWERCONTEXT_SERVER_FLUSH_MAX_ATTEMPTS` (default 3). Host runs are tuned with
 * `POWERCONTEXT_SERVER_EXTRACT_TIMEOUT_MS` (default 180 000) and `..._COMMAND` (the CLI's path).
 */
export function extractionOptions(flags: GenerationFlags): ExtractionOptions {
  const generation = generationSettings(flags)
  const maxAttempts = envInteger('POWERCONTEXT_SERVER_FLUSH_MAX_ATTEMPTS')
  const provider = extractWith(flags, generation !== undefined)
  if (provider === 'openai' && generation === undefined)
    throw new CliUsageError('--extract-with openai needs --generation-url and --generation-model')
  const calls = flags.extractCallsPerDay ?? envWhole(`${EXTRACT}CALLS_PER_DAY`)
  const tokens = flags.extractTokensPerDay ?? envWhole(`${EXTRACT}TOKENS_PER_DAY`)
  const model = flags.extractModel ?? env(`${EXTRACT}MODEL`)
  const command = env(`${EXTRACT}COMMAND`)
  const timeoutMs = envInteger(`${EXTRACT}TIMEOUT_MS`)
  return {
    ...(provider === 'openai' && generation !== undefined ? { generation } : {}),
    ...(provider !== undefined && isHostExtractor(provider)
      ? {
          host: {
            kind: provider,
            settings: {
              ...(model === undefined ? {} : { model }),
              ...(command === undefined ? {} : { command }),
              ...(timeoutMs === undefined ? {} : { timeoutMs }),
            },
          },
        }
      : {}),
    budget: {
      ...(calls === undefined ? {} : { callsPerDay: calls }),
      ...(tokens === undefined ? {} : { tokensPerDay: tokens }),
    },
    ...(maxAttempts === undefined ? {} : { flush: { maxAttempts } }),
  }
}
