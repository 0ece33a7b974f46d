import type { Command } from 'commander'

import type { EmbeddingSettings } from '../runtime/embedder.js'
import { CliUsageError, parseInteger } from './cli-io.js'

/** Environment prefix of the embedding settings (shared by `server run` and `admin`). */
const ENV = 'POWERCONTEXT_SERVER_EMBEDDING_'
/** Environment variable holding the embeddings API key (never a flag: flags end up in `ps`). */
export const EMBEDDING_API_KEY_ENV = `${ENV}API_KEY`

const env = (name: string): string | undefined => {
  const v = process.env[`${ENV}${name}`]
  return v === undefined || v === '' ? undefined : v
}

/** The embedding flags as commander hands them over. */
export interface EmbeddingFlags {
  embeddingUrl?: string
  embeddingModel?: string
  embeddingDimension?: number
  embeddingProfileId?: string
}

/** Adds `--embedding-url/-model/-dimension/-profile-id` (env `POWERCONTEXT_SERVER_EMBEDDING_*`). */
export function addEmbeddingOptions(command: Command): Command {
  return command
    .option('--embedding-url <url>', `OpenAI-compatible embeddings server (env ${ENV}URL)`)
    .option('--embedding-model <model>', `embedding model id (env ${ENV}MODEL)`)
    .option(
      '--embedding-dimension <n>',
      `vector dimension of the model (env ${ENV}DIMENSION)`,
      parseInteger,
    )
    .option(
      '--embedding-profile-id <id>',
      `embedding profile id, fixed in the database at first use (env ${ENV}PROFILE_ID)`,
    )
}

function envInteger(name: string): number | undefined {
  const v = env(name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new CliUsageError(`${ENV}${name} must be a non-negative integer`)
  return Number(v)
}

/**
 * The embedding settings of a command: flags, else `POWERCONTEXT_SERVER_EMBEDDING_*`; all four of
 * url, model, dimension and profile id, or none (no vector search). The API key is read from
 * `POWERCONTEXT_SERVER_EMBEDDING_API_KEY` at request time; `..._TIMEOUT_MS` and `..._BATCH_SIZE`
 * tune requests (defaults 10 000 ms, 64 texts).
 * @throws CliUsageError when only some of the four are given.
 */
export function embeddingSettings(flags: EmbeddingFlags): EmbeddingSettings | undefined {
  const parts = {
    url: flags.embeddingUrl ?? env('URL'),
    model: flags.embeddingModel ?? env('MODEL'),
    dimension: flags.embeddingDimension ?? envInteger('DIMENSION'),
    profileId: flags.embeddingProfileId ?? env('PROFILE_ID'),
  }
  const missing = Object.entries(parts).filter(([, v]) => v === undefined)
  if (missing.length === 4) return undefined
  if (missing.length > 0) {
    const names = { url: 'url', model: 'model', dimension: 'dimension', profileId: 'profile-id' }
    throw new CliUsageError(
      `embedding settings go together: missing ${missing.map(([k]) => `--embedding-${names[k as keyof typeof names]}`).join(', ')}`,
    )
  }
  return {
    url: parts.url as string,
    model: parts.model as string,
    dimension: parts.dimension as number,
    profileId: parts.profileId as string,
    apiKeyEnv: EMBEDDING_API_KEY_ENV,
    timeoutMs: envInteger('TIMEOUT_MS'),
    batchSize: envInteger('BATCH_SIZE'),
  }
}
