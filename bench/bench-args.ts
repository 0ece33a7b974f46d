/**
 * Command-line flags of the benchmarks: `--flag value` or `--flag=value`, every flag taking a
 * value; an unknown flag is an error, so a typo never runs the default benchmark instead.
 */

/** What a flag does with its value (`undefined` when the command line ends after the flag). */
export type FlagHandler = (value: string | undefined, flag: string) => void

/** Runs each flag's handler with its value, in command-line order. */
export function parseFlags(
  argv: readonly string[],
  handlers: Readonly<Record<string, FlagHandler>>,
): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const [flag, inline] = arg.includes('=') ? arg.split('=', 2) : [arg, undefined]
    const handler = flag === undefined ? undefined : handlers[flag]
    if (handler === undefined) throw new Error(`unknown argument ${arg}`)
    handler(inline ?? argv[++i], flag!)
  }
}

/** A flag's value as an integer ≥ 1. */
export function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value)
  if (value === undefined || !Number.isInteger(n) || n < 1)
    throw new Error(`${flag} needs a positive integer`)
  return n
}
