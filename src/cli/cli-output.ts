// Where the CLI writes and how it exits. Imports nothing, so the `mcp` fast path (mcp-main.ts)
// can use it without loading the rest of the CLI.

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
