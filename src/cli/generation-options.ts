import type { Command } from 'commander'

import type { GenerationSettings } from '../runtime/chat-model.js'
import type { ExtractionOptions } from '../runtime/extraction.js'
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
}

/** Adds `--generation-url/-model` (env `POWERCONTEXT_SERVER_GENERATION_*`). */
export function addGenerationOptions(command: Command): Command {
  return command
    .option(
      '--generation-url <url>',
      `OpenAI-compatible chat completions server for flush extraction (env ${ENV}URL)`,
    )
    .option('--generation-model <model>', `generation model id (env ${ENV}MODEL)`)
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
 * Extraction options of a command: the generation model (flags or env) and the poison limit
 * `POWERCONTEXT_SERVER_FLUSH_MAX_ATTEMPTS` (default 3).
 */
export function extractionOptions(flags: GenerationFlags): ExtractionOptions {
  const generation = generationSettings(flags)
  const maxAttempts = envInteger('POWERCONTEXT_SERVER_FLUSH_MAX_ATTEMPTS')
  return {
    ...(generation === undefined ? {} : { generation }),
    ...(maxAttempts === undefined ? {} : { flush: { maxAttempts } }),
  }
}
