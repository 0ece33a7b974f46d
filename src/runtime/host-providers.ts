/**
 * The agent hosts whose own CLI can be the generation provider (`--extract-with <host id>`),
 * one row each: the host's id → the provider over its CLI. `extraction.ts` picks from this table;
 * the CLI's `EXTRACT_WITH` (`cli/generation-options.ts`) names the same ids, checked by type.
 */
import { ClaudeCodeProvider } from './claude-code-provider.js'
import { CodexProvider } from './codex-provider.js'
import type { GenerationProvider } from './generation-provider.js'
import type { HostProviderSettings } from './host-provider.js'

export const HOST_PROVIDERS = {
  'claude-code': (settings?: HostProviderSettings) => new ClaudeCodeProvider(settings),
  codex: (settings?: HostProviderSettings) => new CodexProvider(settings),
} as const satisfies Readonly<
  Record<string, (settings?: HostProviderSettings) => GenerationProvider>
>

/** A host whose CLI can extract. */
export type HostProviderKind = keyof typeof HOST_PROVIDERS
