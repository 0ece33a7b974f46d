// Strict check of the prepared-context envelope (POST /v1/context/prepare), as the reference
// plugins check it: exactly the four fields, the schema id, `empty` ⇒ null and 0, `ready` ⇒
// non-blank content whose UTF-8 length is `content_bytes`, within the asked budget.
import { HookFailure } from './diagnostics.mjs'

export const PREPARED_CONTEXT_SCHEMA = 'powercontext.prepared-context.v1'
const FIELDS = ['content', 'content_bytes', 'schema', 'status']

/**
 * The content to inject (`null` for `empty`) of a valid envelope.
 * @param {unknown} response the parsed answer
 * @param {number} maxBytes the `max_bytes` that was asked for
 * @returns {string | null}
 * @throws {HookFailure} `invalid_response`
 */
export function preparedContent(response, maxBytes) {
  const bad = () => new HookFailure('invalid_response')
  if (response === null || typeof response !== 'object' || Array.isArray(response)) throw bad()
  if (Object.keys(response).sort().join() !== FIELDS.join()) throw bad()
  const { schema, status, content, content_bytes: bytes } = response
  if (schema !== PREPARED_CONTEXT_SCHEMA) throw bad()
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw bad()
  if (status === 'empty') {
    if (content !== null || bytes !== 0) throw bad()
    return null
  }
  if (status !== 'ready' || typeof content !== 'string' || content.trim() === '') throw bad()
  if (!content.isWellFormed() || Buffer.byteLength(content, 'utf8') !== bytes) throw bad()
  if (bytes > maxBytes) throw bad()
  return content
}
