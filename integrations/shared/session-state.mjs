// What a hook remembers about one agent session between its runs: the exact memory versions
// already injected (so none is injected twice) and the Git HEAD when the current turn began. One
// small JSON file per session in a private directory (0700, files 0600), at most MAX_SESSIONS
// files and MAX_REFS refs each. It holds refs (`mem_…` ids and revisions) and a commit id only —
// never memory, prompt or transcript text. Any failure reads as an empty state and writes nothing.
import { createHash } from 'node:crypto'
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join } from 'node:path'

/** Sessions kept (the least recently written go first) and refs kept per session (oldest go). */
export const MAX_SESSIONS = 64
export const MAX_REFS = 256
const STATE_VERSION = 1
const REF = /^[\x21-\x7e]{1,128}:[1-9][0-9]{0,14}$/u
const HEAD = /^[0-9a-f]{40,64}$/u

/**
 * The private directory of the hooks' session state: `POWERCONTEXT_HOOKS_STATE_DIR`, else
 * `$XDG_STATE_HOME/powercontext/hook-sessions`, else `~/.local/state/powercontext/hook-sessions`.
 * @param {Record<string, string | undefined>} env
 * @returns {string | undefined} undefined when no absolute directory can be named
 */
export function stateDir(env) {
  const explicit = env.POWERCONTEXT_HOOKS_STATE_DIR?.trim()
  if (explicit) return isAbsolute(explicit) ? explicit : undefined
  const xdg = env.XDG_STATE_HOME?.trim()
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME?.trim() || homedir(), '.local', 'state')
  return isAbsolute(base) ? join(base, 'powercontext', 'hook-sessions') : undefined
}

/** A directory only this user can read: created 0700, an existing one of ours narrowed to 0700. */
export function privateDir(dir) {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const st = statSync(dir)
  if (!st.isDirectory()) throw new Error('not a directory')
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) {
    throw new Error('not ours')
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700)
}

/**
 * One session's state. `load` never throws; `save` never throws (a state it cannot keep simply
 * means the next run repeats what this one gave — fail open).
 */
export class SessionState {
  /** @type {string[]} refs `mem_…:<revision>`, oldest first */
  refs = []
  /** @type {string | undefined} HEAD when the current turn began */
  turnHead = undefined
  /** Whether the session was given the brief (since it began or was last compacted). */
  briefed = false
  #file
  #dir

  constructor(dir, file) {
    this.#dir = dir
    this.#file = file
  }

  /**
   * The state of `sessionId` for `host`, or an empty one that is never saved when there is no
   * session id or no usable directory.
   */
  static load(env, host, sessionId) {
    const dir = stateDir(env)
    if (dir === undefined || typeof sessionId !== 'string' || sessionId === '') {
      return new SessionState(undefined, undefined)
    }
    const name = createHash('sha256').update(`${host}\0${sessionId}`, 'utf8').digest('hex')
    const state = new SessionState(dir, join(dir, `${name.slice(0, 40)}.json`))
    try {
      const data = JSON.parse(readFileSync(state.#file, 'utf8'))
      if (data?.v === STATE_VERSION && Array.isArray(data.refs)) {
        state.refs = data.refs.filter((r) => typeof r === 'string' && REF.test(r))
        if (typeof data.head === 'string' && HEAD.test(data.head)) state.turnHead = data.head
        state.briefed = data.briefed === true
      }
    } catch {
      // no state yet, or unreadable: start empty
    }
    return state
  }

  /** The injected versions as `exclude_refs` of a prepare request. */
  excludeRefs() {
    return this.refs.map((r) => {
      const at = r.lastIndexOf(':')
      return { artifact_id: r.slice(0, at), revision: Number(r.slice(at + 1)) }
    })
  }

  /** Records versions just injected (`{artifact_id, revision}` citations). */
  addRefs(citations) {
    const known = new Set(this.refs)
    for (const c of citations) {
      const ref = `${c?.artifact_id}:${c?.revision}`
      if (REF.test(ref) && !known.has(ref)) {
        known.add(ref)
        this.refs.push(ref)
      }
    }
    if (this.refs.length > MAX_REFS) this.refs = this.refs.slice(-MAX_REFS)
  }

  /** Whether this state is kept between runs (a session id and a usable directory). */
  get kept() {
    return this.#file !== undefined
  }

  /** Forgets what was injected, the brief too (a compaction dropped it from the context). */
  reset() {
    this.refs = []
    this.briefed = false
  }

  /** Writes the state atomically (temp file 0600, then rename); prunes old sessions first. */
  save() {
    if (this.#file === undefined) return
    try {
      privateDir(this.#dir)
      let isNew = false
      try {
        statSync(this.#file)
      } catch {
        isNew = true
      }
      if (isNew) prune(this.#dir)
      const body = {
        v: STATE_VERSION,
        refs: this.refs,
        briefed: this.briefed,
        ...(this.turnHead ? { head: this.turnHead } : {}),
      }
      const tmp = `${this.#file}.${process.pid}.tmp`
      writeFileSync(tmp, JSON.stringify(body), { mode: 0o600 })
      renameSync(tmp, this.#file)
    } catch {
      // fail open: the next run of this session repeats what this one gave
    }
  }
}

/** Keeps at most MAX_SESSIONS - 1 session files, so one more can be added. */
function prune(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  if (files.length < MAX_SESSIONS) return
  const aged = files
    .map((f) => {
      try {
        return { f, t: statSync(join(dir, f)).mtimeMs }
      } catch {
        return { f, t: 0 }
      }
    })
    .sort((a, b) => a.t - b.t)
  for (const { f } of aged.slice(0, files.length - MAX_SESSIONS + 1)) {
    try {
      unlinkSync(join(dir, f))
    } catch {
      // another hook removed it
    }
  }
}

/** The `{artifact_id, revision}` citations of a v1 prepared-context block (none if unparseable). */
export function citationsOf(content) {
  const lines = content.split('\n')
  const begin = lines.indexOf('BEGIN_POWERCONTEXT_PREPARED_CONTEXT_V1')
  try {
    const { items } = JSON.parse(lines[begin + 1] ?? '')
    return Array.isArray(items) ? items.map((i) => i?.citation).filter((c) => c) : []
  } catch {
    return []
  }
}
