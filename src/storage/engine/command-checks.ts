/**
 * Validation of the commands (STYLE R2: every rule once, in the base backend): each check returns
 * the normalized command its operation runs on, or throws `invalid_request`.
 */
import {
  checkArtifactRef,
  checkKinds,
  checkLimit,
  checkSourceRefs,
  checkStates,
} from '../../core/command-rules.js'
import { invalidRequest } from '../../core/errors.js'
import { checkMemoryId, checkRevision, checkScopeId } from '../../core/ids.js'
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '../../core/search-rules.js'
import { refuseSecrets } from '../../core/secret-rules.js'
import {
  normalizeKind,
  normalizeQuery,
  normalizeReason,
  normalizeText,
  normalizeTimestamp,
} from '../../core/text-rules.js'
import type * as Spi from '../spi/memory-backend.js'
import {
  CHANGES_LIMIT_DEFAULT,
  CHANGES_LIMIT_MAX,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  REMEMBER_MAX_ENTRIES,
  SEARCH_MODES,
} from '../spi/memory-backend.js'
import { type Pause, timeSlicer } from './event-loop-slices.js'
import { checkMergeInputs } from './ops/merge.js'
import { checkEntry } from './ops/remember.js'

function checkToken(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(value)) {
    throw invalidRequest('preview_token', 'must be a token returned by restore preview')
  }
  return value
}

/**
 * The checked command, once its stored text (`text`, `reason`) carries no credential.
 * @throws PowerContextError `secret_detected` naming the field and the rule
 */
function refused<C extends { text?: string | undefined; reason?: string | null | undefined }>(
  checked: C,
): C {
  refuseSecrets({ text: checked.text, reason: checked.reason ?? undefined })
  return checked
}

/** `check(value)` when given, `undefined` otherwise. */
export function optional<T>(value: T | undefined, check: (v: T) => T): T | undefined {
  return value === undefined ? undefined : check(value)
}

/**
 * Checks remember: 1–100 entries, each checked, then each looked at by the secret rules, one
 * entry at a time with `pause()` awaited between them (100 texts of 8 KB are tens of ms of rule
 * matching; the default pause yields to the event loop once a slice's budget is spent).
 * @throws PowerContextError `invalid_request`, `secret_detected`.
 */
export async function checkRemember(cmd: Spi.RememberCommand, pause: Pause = timeSlicer()) {
  const scopeId = checkScopeId(cmd.scopeId)
  if (
    !Array.isArray(cmd.entries) ||
    cmd.entries.length === 0 ||
    cmd.entries.length > REMEMBER_MAX_ENTRIES
  ) {
    throw invalidRequest('entries', `must hold 1–${REMEMBER_MAX_ENTRIES} entries`)
  }
  const entries: ReturnType<typeof checkEntry>[] = []
  for (const [i, entry] of cmd.entries.entries()) {
    await pause()
    entries.push(checkEntry(entry, i))
  }
  for (const [i, e] of entries.entries()) {
    await pause()
    refuseSecrets({
      [`entries[${i}].text`]: e.content.text,
      [`entries[${i}].reason`]: e.reason ?? undefined,
    })
  }
  return { scopeId, entries }
}

/**
 * Checks update: the exact base revision, optional new content.
 * @throws PowerContextError `invalid_request`, `secret_detected`
 */
export function checkUpdate(cmd: Spi.UpdateCommand) {
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    memoryRef: checkArtifactRef(cmd.memoryRef),
    text: optional(cmd.text, (t) => normalizeText(t)),
    kind: optional(cmd.kind, (k) => normalizeKind(k)),
    sources: checkSourceRefs(cmd.sources),
    observedAt: cmd.observedAt === undefined ? undefined : normalizeTimestamp(cmd.observedAt),
    reason: normalizeReason(cmd.reason),
  })
}

/** Checks forget: the memory and an optional expected revision. @throws PowerContextError `invalid_request`, `secret_detected`. */
export function checkForget(cmd: Spi.ForgetCommand) {
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    memoryId: checkMemoryId(cmd.memoryId),
    expectedRevision: optional(cmd.expectedRevision, (r) => checkRevision(r, 'expected_revision')),
    reason: normalizeReason(cmd.reason),
  })
}

/** Checks restore and its preview: the memory and an optional `to_revision`. @throws PowerContextError `invalid_request`. */
export function checkRestoreTarget(cmd: Spi.RestorePreviewCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    memoryId: checkMemoryId(cmd.memoryId),
    toRevision: optional(cmd.toRevision, (r) => checkRevision(r, 'to_revision')),
  }
}

/** Checks restore: the target and an optional preview token. @throws PowerContextError `invalid_request`. */
export function checkRestore(cmd: Spi.RestoreCommand) {
  return refused({
    ...checkRestoreTarget(cmd),
    previewToken: optional(cmd.previewToken, (t) => checkToken(t)),
    reason: normalizeReason(cmd.reason),
  })
}

/** Checks merge: 2–100 distinct inputs at exact revisions, the result content. @throws PowerContextError `invalid_request`. */
export function checkMerge(cmd: Spi.MergeCommand) {
  if (!Array.isArray(cmd.inputs) || cmd.inputs.length > REMEMBER_MAX_ENTRIES) {
    throw invalidRequest('inputs', `must be an array of 2–${REMEMBER_MAX_ENTRIES} memory refs`)
  }
  const inputs = cmd.inputs.map((r, i) => checkArtifactRef(r, `inputs[${i}]`))
  checkMergeInputs(inputs)
  return refused({
    scopeId: checkScopeId(cmd.scopeId),
    inputs,
    kind: normalizeKind(cmd.kind),
    text: normalizeText(cmd.text),
    reason: normalizeReason(cmd.reason),
  })
}

/** Checks list: states, kinds, keyset `after`, `limit` (default 100, at most 500). */
export function checkList(cmd: Spi.ListCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    states: checkStates(cmd.states),
    kinds: checkKinds(cmd.kinds),
    after: optional(cmd.after, (a) => checkMemoryId(a, 'after')),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: LIST_LIMIT_MAX,
      fallback: LIST_LIMIT_DEFAULT,
    }),
  }
}

/** Checks search: the mode (default `auto`), the query, `limit`, kinds. */
export function checkSearch(cmd: Spi.SearchCommand) {
  const mode = cmd.mode === undefined ? 'auto' : cmd.mode
  if (!(SEARCH_MODES as readonly unknown[]).includes(mode)) {
    throw invalidRequest('mode', `must be one of ${SEARCH_MODES.join(', ')}`)
  }
  return {
    mode,
    scopeId: checkScopeId(cmd.scopeId),
    query: normalizeQuery(cmd.query),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: SEARCH_LIMIT_MAX,
      fallback: SEARCH_LIMIT_DEFAULT,
    }),
    kinds: checkKinds(cmd.kinds),
  }
}

/** Checks changes: `since` (exclusive, default 0) and `limit` (default 1000, at most 10,000). */
export function checkChanges(cmd: Spi.ChangesCommand) {
  return {
    scopeId: checkScopeId(cmd.scopeId),
    since: checkLimit(cmd.since, 'since', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    limit: checkLimit(cmd.limit, 'limit', {
      min: 1,
      max: CHANGES_LIMIT_MAX,
      fallback: CHANGES_LIMIT_DEFAULT,
    }),
  }
}
