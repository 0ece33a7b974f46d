// What a credential value looks like, and what is only a reference to one, a placeholder, or
// code. Shared by the generic secret rules (secret-rules.mjs); plain JavaScript with no imports,
// so that the agent hooks, the server and the web console (a browser bundle) use the same tests.

const CLASSES = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/]

/** How many of lower case, upper case, digits and other characters the value holds. */
const classCount = (/** @type {string} */ value) => CLASSES.filter((re) => re.test(value)).length

// Where a secret lives is not a secret: `${VAR}`, `$VAR`, `%s`, `{{ x }}`, `<token>`,
// `process.env.X`, `os.environ['X']`, `getenv(…)`, `vault:…`, `op://…`, `arn:…`, key file paths,
// lower-case paths (`secret/data/prod/db`) and dotted names (`config.api_key`).
const REFERENCE = [
  /[$({[<>]|%[sdif(]|%(?![0-9A-F]{2})[A-Za-z_]\w*%|env\b|environ/i,
  /^[~.]?\//,
  /^[a-z][a-z0-9+.-]*:/i,
  /^[a-z0-9_.-]+(?:\/[a-z0-9_.-]+)+\/?$/,
  /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?$/,
]
// What a document writes where the secret would go.
const PLACEHOLDER =
  /your|example|placeholder|change[_-]?me|replace|redacted|dummy|sample|fake|todo|xxxx|\*\*\*|\.\.\.|…|^(?:password|passwd|pass|secret|token|none|null|undefined|true|false|required|optional|string|hidden|masked)$/i

/**
 * True when the value only points at a secret, or stands in for one.
 * @param {string} value
 */
export function referenceOrPlaceholder(value) {
  return REFERENCE.some((re) => re.test(value)) || PLACEHOLDER.test(value) || /^(.)\1*$/.test(value)
}

/**
 * A value assigned to a password, secret or token name: ≥ 8 characters of ≥ 2 classes.
 * @param {string} value
 */
export function credentialLike(value) {
  if (value.length < 8 || referenceOrPlaceholder(value)) return false
  return classCount(value) >= 2 && !/^[a-z]+$/i.test(value)
}

/**
 * A value that looks generated rather than written: ≥ 16 characters and either hexadecimal with
 * letters and digits, or upper case, lower case and digits together, or base64 with its
 * punctuation. Names such as `sort_key` or `cache_key` hold words (`created_at_desc`), not this.
 * @param {string} value
 */
export function randomLike(value) {
  if (value.length < 16 || referenceOrPlaceholder(value)) return false
  if (/^[0-9a-f]+$/i.test(value)) return /\d/.test(value) && /[a-f]/i.test(value)
  const digits = value.replace(/\D/g, '').length
  if (/^[A-Za-z0-9_-]+$/.test(value))
    return digits >= 2 && /[a-z]/.test(value) && /[A-Z]/.test(value)
  return /^[A-Za-z0-9+/=_.-]+$/.test(value) && digits >= 2 && classCount(value) >= 3
}

// A name ends with the word for what it holds. Strong words take any credential-like value;
// weak ones (`key`, `auth`, `credentials`, `pat`) only a generated-looking one.
const STRONG_NAME =
  /(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key|[_-]pass|[a-z]Pass)$/i
const WEAK_NAME = /(?:[^a-z]key|key$|[_-]auth|credentials?|[_-]pat)$/i
// In prose the qualifier is a word of its own: "the staging API key is …".
const QUALIFIER = /(?:api|access|secret|private|signing|encryption|master)[ _-]$/i

/**
 * How strict the value test is for a name (`'strong'`, `'weak'` or undefined: not a credential
 * name); `before` is the text just before the name (a qualifying word makes `key` strong).
 * @param {string} name
 * @param {string} [before]
 */
export function credentialName(name, before = '') {
  const tail = name.slice(-40)
  if (STRONG_NAME.test(tail)) return 'strong'
  if (WEAK_NAME.test(tail) || /^(?:key|auth|pass)$/i.test(tail))
    return QUALIFIER.test(before) ? 'strong' : 'weak'
  return undefined
}

// Prefixes of identifiers and checksums that are not credentials (`sha256-…`, `commit-…`), and of
// object ids (this project's `mem_`, `mrg_`, `op_`, `flr_`, `src_`; payment and event ids such as `cus_`).
const NOT_A_TOKEN_PREFIX =
  /^(?:sha\d*|md5|blake\d*|crc\d*|commit|rev|hash|digest|checksum|integrity|build|uuid|ulid|id|test|spec|chunk|bundle|v\d*|mem|mrg|op|flr|src|ver|req|run|job|msg|evt|txn|obj|cus|ch|pi|pm|in|sub|prod|price|acct|seti|po|tr)$/i

/**
 * The random part of a `prefix_…` or `prefix-…` token (`dop_v1_…`, `hf_…`, `pypi-…`, `key-…`):
 * ≥ 20 characters of upper, lower case and digits (no long lower-case word in it, which code
 * identifiers have), or ≥ 32 hexadecimal digits; the prefix is no checksum or identifier word.
 * @param {string} prefix
 * @param {string} body
 */
export function generatedToken(prefix, body) {
  if (NOT_A_TOKEN_PREFIX.test(prefix)) return false
  if (/^[0-9a-f]+$/.test(body) || /^[0-9A-F]+$/.test(body))
    return body.length >= 32 && /\d/.test(body) && /[a-f]/i.test(body)
  if (body.length < 20 || referenceOrPlaceholder(body)) return false
  const digits = body.replace(/\D/g, '').length
  const upper = body.replace(/[^A-Z]/g, '').length
  const lower = body.replace(/[^a-z]/g, '').length
  if (lower === 0) return digits >= 4 && upper >= 4
  if (/[A-Z][a-z]{4,}[A-Z][a-z]{4,}/.test(body) || /[a-z]{10}/.test(body)) return false
  // Letters only (Hugging Face): long, both cases well mixed.
  if (digits === 0) return body.length >= 30 && upper >= 6 && lower >= 6
  return digits >= 2 && upper >= 2 && !/[a-z]{8}/.test(body)
}
