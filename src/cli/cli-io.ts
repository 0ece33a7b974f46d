import { InvalidArgumentError } from 'commander'

import { PowerContextError } from '../core/errors.js'
import { toWireError } from '../wire/memory-wire.js'

/** Where the CLI writes; injectable so tests can capture output. */
export interface CliIo {
  out(text: string): void
  err(text: string): void
}

export const PROCESS_IO: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
}

/** Exit codes: 0 success, 1 a typed failure (or verify found problems), 2 a usage error. */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

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

/** Prints a failure: one line `code: message`, or the JSON error envelope with `--json`. */
export function printError(io: CliIo, err: unknown, json: boolean): number {
  const e =
    err instanceof PowerContextError
      ? err
      : new PowerContextError('internal_error', (err as Error)?.message ?? String(err))
  if (json) io.err(JSON.stringify(toWireError(e, null)))
  else {
    io.err(`error: ${e.code}: ${e.message}`)
    const errors = (e.details?.['errors'] ?? []) as { field: string; message: string }[]
    if (errors.length > 1) for (const fe of errors) io.err(`  ${fe.field}: ${fe.message}`)
  }
  return EXIT_FAILURE
}
