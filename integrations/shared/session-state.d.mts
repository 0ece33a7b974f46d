/** Types of `session-state.mjs` for TypeScript importers (tests). */
export declare const MAX_SESSIONS: number
export declare const MAX_REFS: number
/** The private directory of the hooks' session state, or undefined. */
export declare function stateDir(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined
/** A directory only this user can read: created 0700, an existing one of ours narrowed to 0700. */
export declare function privateDir(dir: string): void

/** One session's state: the injected versions and the HEAD when the turn began. */
export declare class SessionState {
  refs: string[]
  turnHead: string | undefined
  briefed: boolean
  /** A state kept only in memory (no directory, no file): never saved. */
  constructor(dir: undefined, file: undefined)
  static load(
    env: Readonly<Record<string, string | undefined>>,
    host: string,
    sessionId: unknown,
  ): SessionState
  excludeRefs(): { artifact_id: string; revision: number }[]
  addRefs(citations: readonly unknown[]): void
  reset(): void
  save(): void
}

/** The `{artifact_id, revision}` citations of a v1 prepared-context block. */
export declare function citationsOf(content: string): { artifact_id: string; revision: number }[]
