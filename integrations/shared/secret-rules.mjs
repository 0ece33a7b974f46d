// The project's secret rules, written once, in plain JavaScript with no imports, so that the server
// (src/core/secret-rules.ts re-exports them with types) and the agent hooks (node: built-ins only)
// apply the same rules. Admission rule of the memory-family spec: candidates and captured hook text
// must not carry secrets (API keys, tokens, private keys, passwords). The rules are deliberately
// specific (known token shapes, key blocks, and credential assignments whose value looks like a
// credential) so that ordinary prose about passwords or keys is not refused. A match never echoes
// the secret itself.

const pattern = (re) => (text) => re.test(text)

/** True when a credential value looks like one: long enough, no spaces, mixed characters. */
function credentialLike(value) {
  if (value.length < 8) return false
  // References to where a secret lives are not secrets: ${VAR}, process.env.X, os.environ['X'].
  if (/[$({[<]|env\b|environ/i.test(value)) return false
  // Paths to key files are not keys.
  if (/^[~.]?\//.test(value)) return false
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length
  return classes >= 2 && !/^[a-z]+$/i.test(value)
}

const ASSIGNMENT =
  /\b(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|access[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key)\b["']?\s*(?:[:=]|=>|\bis\b)\s*["'`]?([^\s"'`,;]+)/gi

function credentialAssignment(text) {
  for (const m of text.matchAll(ASSIGNMENT)) if (credentialLike(m[1] ?? '')) return true
  return false
}

// Every rule runs in time linear in the text (issue 12 item 7). A backtracking engine tries a
// pattern at every start; a rule whose unbounded run can begin at many starts inside one run of
// its characters (`a-a-a-…` for a URL scheme, `eyJ-eyJ-…` for a JWT) rescans that run from each
// of them: quadratic. Those two rules are written as a scan from their fixed middle ("://", ".eyJ")
// instead, each stretch of text visited a bounded number of times; they match exactly what their
// patterns matched (test/core/secret-rules-linear.test.ts compares them).

const WORD = /[A-Za-z0-9_]/
const SCHEME_CHAR = /[A-Za-z0-9+.-]/
const LETTER = /[A-Za-z]/
/** What follows `scheme://` in a URL with credentials: `user:pass@host`, pass ≥ 3 characters. */
const USERINFO = /[^\s/:@]+:[^\s/@]{3,}@[^\s/]/y

/**
 * True when the characters before `end` end a URL scheme `\b[a-z][a-z0-9+.-]*` (any case): some
 * letter at a word boundary starts a run of scheme characters reaching `end`.
 */
function schemeEndsAt(text, end) {
  for (let k = end - 1; k >= 0 && SCHEME_CHAR.test(text[k]); k -= 1) {
    if (LETTER.test(text[k]) && (k === 0 || !WORD.test(text[k - 1]))) return true
  }
  return false
}

/** `\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]{3,}@[^\s/]+` (case-insensitive), linear. */
function urlCredentials(text) {
  for (let at = text.indexOf('://'); at !== -1; at = text.indexOf('://', at + 1)) {
    if (!schemeEndsAt(text, at)) continue
    USERINFO.lastIndex = at + 3
    if (USERINFO.test(text)) return true
  }
  return false
}

const JWT_CHAR = /[A-Za-z0-9_-]/
/** A JWT's payload and signature after the header's end: `.eyJ` + ≥ 8, `.`, ≥ 8 characters. */
const JWT_REST = /\.(?=eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8})/g

/** True when a JWT header `\beyJ[A-Za-z0-9_-]{8,}` ends at `dot`. */
function jwtHeaderEndsAt(text, dot) {
  let start = dot
  while (start > 0 && JWT_CHAR.test(text[start - 1])) start -= 1
  for (let p = start; p <= dot - 11; p += 1) {
    if (text.startsWith('eyJ', p) && (p === start || text[p - 1] === '-')) return true
  }
  return false
}

/** `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, linear. */
function jwt(text) {
  for (const m of text.matchAll(JWT_REST)) if (jwtHeaderEndsAt(text, m.index)) return true
  return false
}

/** The rules, most specific first. */
export const SECRET_RULES = Object.freeze([
  {
    name: 'private_key',
    test: pattern(/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/),
  },
  { name: 'aws_access_key_id', test: pattern(/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/) },
  { name: 'github_token', test: pattern(/\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{20,})/) },
  { name: 'gitlab_token', test: pattern(/\bglpat-[A-Za-z0-9_-]{20,}/) },
  { name: 'openai_api_key', test: pattern(/\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}/) },
  { name: 'slack_token', test: pattern(/\bxox[abposr]-[A-Za-z0-9-]{10,}/) },
  { name: 'google_api_key', test: pattern(/\bAIza[0-9A-Za-z_-]{35}\b/) },
  { name: 'stripe_key', test: pattern(/\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}/) },
  { name: 'jwt', test: jwt },
  {
    name: 'authorization_header',
    test: pattern(/\bauthorization\s*:\s*(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}/i),
  },
  { name: 'bearer_token', test: pattern(/\bbearer\s+[A-Za-z0-9._~+/-]{24,}=*/i) },
  { name: 'url_credentials', test: urlCredentials },
  { name: 'credential_assignment', test: credentialAssignment },
])

/** The first secret rule the text matches (`{rule}`, the rule name only), or undefined. */
export function findSecret(text) {
  for (const rule of SECRET_RULES) if (rule.test(text)) return { rule: rule.name }
  return undefined
}

/** True when the text looks like it carries a secret (see {@link SECRET_RULES}). */
export function looksLikeSecret(text) {
  return findSecret(text) !== undefined
}
