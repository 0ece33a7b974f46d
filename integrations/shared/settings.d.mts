/** Types of `settings.mjs` for TypeScript importers (tests, the CLI). */
export interface HookSettings {
  readonly serverUrl: URL
  readonly authorization: string | undefined
  readonly capture: boolean
  readonly recall: boolean
  readonly requestTimeoutMs: number
  readonly budgetMs: number
  /** `http`: the host's UserPromptSubmit hook is the server's route (POWERCONTEXT_HOOKS_FORM). */
  readonly form: 'command' | 'http'
}
export declare const DEFAULT_SERVER_URL: string
export declare const DEFAULT_REQUEST_TIMEOUT_MS: number
export declare const DEFAULT_BUDGET_MS: number
/** @throws a HookFailure with `outcome: 'invalid_settings'` */
export declare function readSettings(
  env: Readonly<Record<string, string | undefined>>,
  /** A row of `HOST_PROFILES` (its `serverUrlEnv`). */
  host: string,
): HookSettings
