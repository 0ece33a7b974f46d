/** Types of `hook-entry.mjs` for TypeScript importers (the hook programs, tests). */

/** Largest stdin payload read (a prompt is at most 200,000 characters). */
export declare const MAX_PAYLOAD_BYTES: number

/**
 * Runs one hook program for a host profile: at once, handed to a detached worker (`--detach`),
 * or as that worker (`--worker <file>`).
 */
export declare function hookEntry(
  profile: object,
  script: string,
  io?: Pick<NodeJS.Process, 'argv' | 'env' | 'stdin' | 'stdout' | 'stderr' | 'exit'>,
): Promise<void>
