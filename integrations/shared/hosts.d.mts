/** Types of `hosts.mjs` for TypeScript importers (the CLI, the server, tests). */
export interface HostProfile {
  readonly host: string
  /** The `component` of the hook's diagnostic line. */
  readonly component: string
  /** The `origin` of captured sources' metadata. */
  readonly origin: string
  readonly displayName: string
  /** The source id prefix of a captured prompt. */
  readonly promptSourcePrefix: string
  /** Payload fields naming the session, first non-blank wins. */
  readonly sessionKeys: readonly string[]
  /** Payload fields naming the turn, first non-blank wins. */
  readonly turnKeys: readonly string[]
  /** The metadata key the turn id is captured under. */
  readonly turnMetaKey: string
  /** Env names of the server URL, first set wins. */
  readonly serverUrlEnv: readonly string[]
  /** Env names of the explicit scope override, first set wins. */
  readonly scopeEnv: readonly string[]
  /** The host's names of our events, where they differ (its hook output names them too). */
  readonly events?: Readonly<Partial<Record<HookEvent, string>>>
  /** Stop payload fields holding the turn's reply, first string wins (default `last_assistant_message`). */
  readonly replyKeys?: readonly string[]
}
export type HookEvent = 'SessionStart' | 'UserPromptSubmit' | 'Stop' | 'PreCompact'
export declare const DEFAULT_SCOPE_ENV: readonly string[]
export declare const DEFAULT_SERVER_URL_ENV: readonly string[]
export declare const HOST_PROFILES: Readonly<Record<string, HostProfile>>
export declare function hostEventName(profile: HostProfile, event: HookEvent): string
export declare function ourEventName(profile: HostProfile, name: unknown): unknown
/** @throws Error for a host without a row. */
export declare function hostProfile(host: string): HostProfile
