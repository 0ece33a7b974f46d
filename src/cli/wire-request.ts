import type { components } from '../contract/powercontext-types.js'

/** `{key: value}` when the option is given, `{}` otherwise (absent ≠ null on the wire). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V }
}

/** `--source ID` options as the wire's evidence refs (`{}` when none is given). */
export const wireSources = (
  ids: readonly string[] | undefined,
): { sources?: components['schemas']['SourceRef'][] } =>
  opt(
    'sources',
    ids?.map((source_id) => ({ name: 'content' as const, source_id })),
  )
