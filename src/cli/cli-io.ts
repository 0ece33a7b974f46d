import { InvalidArgumentError } from 'commander'

import { PowerContextClientError } from '../client/index.js'
import { PowerContextError } from '../core/errors.js'
import { databaseBackendFor } from '../runtime/backend-registry.js'
import { toWireError } from '../wire/memory-wire.js'
import { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './cli-output.js'

export { type CliIo, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, PROCESS_IO } from './cli-output.js'

/**
 * Prints a command's result: the wire JSON with `--json`, else the human lines. Returns
 * {@link EXIT_OK}.
 */
export function printResult(
  io: CliIo,
  json: boolean,
  wire: unknown,
  human: () => string[],
): number {
  if (json) io.out(JSON.stringify(wire))
  else for (const line of human()) io.out(line)
  return EXIT_OK
}

/** Parses a non-negative integer option or argument. */
export function parseInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer')
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('is too large')
  return n
}

/** Collects a repeatable option into a list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value]
}

/** A command line that cannot run as given (exit 2), e.g. conflicting options. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CliUsageError'
  }
}

/** Parses an http(s) URL option. */
export function parseServerUrl(value: string): string {
  try {
    const url = new URL(value)
    if (url.protocol === 'http:' || url.protocol === 'https:') return value
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('must be an http(s) URL')
}

/** Why `value` names no backend of the registry (the supported schemes named), or undefined. */
function databaseUrlProblem(value: string): string | undefined {
  try {
    databaseBackendFor(value)
    return undefined
  } catch (err) {
    return (err as Error).message.replace(/^database: /, '')
  }
}

/**
 * Checks a database URL given by the option or environment variable `name`: its scheme must name
 * a backend of the registry, else a usage error (exit 2) naming the supported schemes and never
 * the URL (it may hold a password). The adapter itself is loaded only when the database is opened.
 */
export function checkDatabaseUrl(value: string, name: string): string {
  const problem = databaseUrlProblem(value)
  if (problem !== undefined) throw new CliUsageError(`${name}: ${problem}`)
  return value
}

/** The option parser of a database URL option `name` (see {@link checkDatabaseUrl}). */
export function databaseOption(name: string): (value: string) => string {
  return (value) => checkDatabaseUrl(value, name)
}

/**
 * Prints a failure: one line `error: code: message`, plus ` (request <id>)` when a server answered
 * (`--server-url`), or the JSON error envelope with `--json`. Returns the exit code: 2 for a
 * {@link CliUsageError}, 1 otherwise.
 */
export function printError(io: CliIo, err: unknown, json: boolean): number {
  if (err instanceof CliUsageError) {
    io.err(`error: ${err.message}`)
    return EXIT_USAGE
  }
  let requestId: string | null = null
  let e: { code: string; message: string; details?: Readonly<Record<string, unknown>> | undefined }
  if (err instanceof PowerContextError) e = err
  else if (err instanceof PowerContextClientError) {
    e = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
    requestId = err.requestId
  } else e = { code: 'internal_error', message: (err as Error)?.message ?? String(err) }
  if (json) io.err(JSON.stringify(toWireError(e, requestId)))
  else {
    io.err(`error: ${e.code}: ${e.message}${requestId === null ? '' : ` (request ${requestId})`}`)
    const errors = (e.details?.['errors'] ?? []) as { field: string; message: string }[]
    if (errors.length > 1) for (const fe of errors) io.err(`  ${fe.field}: ${fe.message}`)
    if (err instanceof PowerContextClientError && err.code === 'unauthorized')
      io.err('  hint: set POWERCONTEXT_CLIENT_API_TOKEN (or pass --token) to the server token')
    if (e.code === 'secret_detected')
      io.err('  hint: write where the secret lives instead (${VAR}, a vault path), never its value')
  }
  return EXIT_FAILURE
}
