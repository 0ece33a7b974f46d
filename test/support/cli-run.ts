import { main } from '../../src/cli/main.js'

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  readonly code: number
  readonly out: string
  readonly err: string
}

/** Runs `powercontext ARGS…` in-process through `main`, capturing stdout and stderr. */
export async function runCli(...args: string[]): Promise<CliRun> {
  let out = ''
  let err = ''
  const line = (t: string): string => (t.endsWith('\n') ? t : `${t}\n`)
  const code = await main(['node', 'powercontext', ...args], {
    out: (t) => (out += line(t)),
    err: (t) => (err += line(t)),
  })
  return { code, out, err }
}
