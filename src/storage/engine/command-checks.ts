/**
 * Helpers the command checks of `ops/` share. Each operation's check lives in its own
 * `ops/<op>.ts`, beside its transaction body: it returns the normalized command the operation
 * runs on, or throws `invalid_request` (built by `invalidRequest`, one message per failure).
 */
import { refuseSecrets } from '../../core/secret-rules.js'

/**
 * The checked command, once its stored text (`text`, `reason`) carries no credential.
 * @throws PowerContextError `secret_detected` naming the field and the rule
 */
export function refused<
  C extends { text?: string | undefined; reason?: string | null | undefined },
>(checked: C): C {
  refuseSecrets({ text: checked.text, reason: checked.reason ?? undefined })
  return checked
}

/** `check(value)` when given, `undefined` otherwise. */
export function optional<T>(value: T | undefined, check: (v: T) => T): T | undefined {
  return value === undefined ? undefined : check(value)
}
