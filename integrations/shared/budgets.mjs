// The byte budgets of what a hook injects and captures, and the cuts that keep a text within
// them: shared by the command hooks and the server's hook route, so both forms inject alike.
// Only built-ins (hooks start fast).

/** Prepared-context budgets (UTF-8 bytes): the reference's 8,000 for recall, less for the brief. */
export const RECALL_MAX_BYTES = 8000
export const BRIEF_MAX_BYTES = 4000
/** The server's query limit (UTF-8 bytes after NFC): a longer prompt is recalled by its start. */
export const MAX_QUERY_BYTES = 8192

/** The UTF-8 size of `text`. */
export const utf8Bytes = (text) => Buffer.byteLength(text, 'utf8')

/** The longest start of `text` of at most `max` UTF-8 bytes, cut between characters. */
export function prefixUtf8(text, max) {
  let out = ''
  let used = 0
  for (const ch of text) {
    used += utf8Bytes(ch)
    if (used > max) break
    out += ch
  }
  return out
}

/** `text` cut to at most `max` UTF-8 bytes on a character boundary, ending in `…` when cut. */
export function cutUtf8(text, max) {
  return utf8Bytes(text) <= max ? text : `${prefixUtf8(text, max - 3)}…`
}

/**
 * The query for a prompt: NFC (as the server measures it), lone surrogates and NULs replaced,
 * cut to at most MAX_QUERY_BYTES UTF-8 bytes on a character boundary (never inside a surrogate
 * pair), no ellipsis.
 */
export function recallQuery(prompt) {
  return prefixUtf8(prompt.toWellFormed().normalize('NFC').replaceAll('\0', ' '), MAX_QUERY_BYTES)
}

/**
 * The recall budget beside a brief: both blocks together (joined by a blank line) stay within
 * RECALL_MAX_BYTES (hosts cut a context near 10,000 characters).
 */
export const recallBudget = (brief) =>
  brief === undefined ? RECALL_MAX_BYTES : RECALL_MAX_BYTES - utf8Bytes(brief) - 2
