/**
 * Where `capture git` keeps the last processed commit (the coding-agent
 * runtime keeps `last_processed_commit` itself; the memory core never discovers "the latest"
 * source). A small private file in the repository's common git dir — never committed, shared by
 * its worktrees, next to the scope binding of the agent hooks —, one entry per target (a server
 * URL or a local data directory) and scope, so that capturing into another store does not skip
 * commits that store never saw. A missing or unreadable file means "nothing processed yet".
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** `schema` of the state file. */
export const GIT_CAPTURE_STATE_SCHEMA = 'powercontext.git-capture.v1'

/** The state file of a repository's common git dir. */
export const gitCaptureStatePath = (commonDir: string): string =>
  join(commonDir, 'powercontext', 'git-capture.json')

interface StateEntry {
  readonly target: string
  readonly scope_id: string
  readonly last_commit: string
  readonly updated_at: string
}

interface StateFile {
  readonly schema: string
  readonly entries: readonly StateEntry[]
}

async function readState(path: string): Promise<StateEntry[]> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<StateFile>
    if (parsed.schema !== GIT_CAPTURE_STATE_SCHEMA || !Array.isArray(parsed.entries)) return []
    return parsed.entries.filter(
      (e): e is StateEntry =>
        typeof e?.target === 'string' &&
        typeof e.scope_id === 'string' &&
        typeof e.last_commit === 'string',
    )
  } catch {
    return []
  }
}

/** The last processed commit for a target and scope, or null. */
export async function lastProcessedCommit(
  commonDir: string,
  target: string,
  scopeId: string,
): Promise<string | null> {
  const entries = await readState(gitCaptureStatePath(commonDir))
  return entries.find((e) => e.target === target && e.scope_id === scopeId)?.last_commit ?? null
}

/** Records the last processed commit (written to a temporary file, then renamed over). */
export async function saveProcessedCommit(
  commonDir: string,
  target: string,
  scopeId: string,
  commit: string,
): Promise<void> {
  const path = gitCaptureStatePath(commonDir)
  const others = (await readState(path)).filter(
    (e) => !(e.target === target && e.scope_id === scopeId),
  )
  const entry = {
    target,
    scope_id: scopeId,
    last_commit: commit,
    updated_at: new Date().toISOString(),
  }
  const body: StateFile = { schema: GIT_CAPTURE_STATE_SCHEMA, entries: [...others, entry] }
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 })
  await rename(tmp, path)
}
