/** Types of `events.mjs` for TypeScript importers (tests, `run-hook.mjs`). */
import type { Diagnostics } from './diagnostics.mjs'
import type { HookSettings } from './settings.mjs'

/** One hook run as `run-hook.mjs` hands it to an event's handler. */
export interface HookRun {
  readonly profile: object
  readonly payload: Record<string, unknown>
  readonly settings: HookSettings
  readonly env: Readonly<Record<string, string | undefined>>
  readonly deadline: number
  readonly diag: Diagnostics
}
/** Handlers by normalised event name; each returns the host's output, if any. */
export declare const EVENT_HANDLERS: Record<
  string,
  ((run: HookRun) => Promise<unknown>) | undefined
>
/** `UserPromptSubmit` and `user_prompt_submit` alike → `userpromptsubmit`. */
export declare function normaliseEvent(name: unknown): string
