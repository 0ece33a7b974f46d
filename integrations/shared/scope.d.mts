/** Types of `scope.mjs` for TypeScript importers (the CLI, tests). */
export declare const MAX_SCOPE_LENGTH: number
/** Whether the server accepts `value` as a scope id (printable ASCII, 1–128 characters). */
export declare function isValidScopeId(value: string): boolean
export declare const BINDING_SCHEMA: string
export declare const BINDING_PATH: readonly string[]

export type ScopeSource = 'env' | 'binding' | 'git' | 'local'
export interface ResolvedScope {
  readonly scope_id: string
  readonly source: ScopeSource
}

/** The project scope of `cwd`: env override → Git-private binding → `git:<host>/<path>` → `local:<sha256>`. */
export declare function resolveScope(options: {
  cwd: string
  env?: Readonly<Record<string, string | undefined>>
  /** A row of `HOST_PROFILES` (its `scopeEnv`); none: `POWERCONTEXT_SCOPE_ID` alone. */
  host?: string
}): ResolvedScope

/** `host/path` of a network Git remote, `undefined` for a local path or another scheme. */
export declare function normalizeGitRemote(remote: string): string | undefined
