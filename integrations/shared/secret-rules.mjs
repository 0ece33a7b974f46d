// The project's generic secret rules, in plain JavaScript with no imports, so that the server
// (src/core/secret-rules.ts adds secretlint's recommended provider rules to them), the agent hooks
// (secret-scanner.mjs, the same combination) and the web console (a browser bundle, these rules
// only) apply the same list. Admission rule: no credential is stored (API keys, tokens, private
// keys, passwords). The rules are deliberately specific (token shapes, key blocks, credential
// assignments whose value looks like a credential) so that ordinary prose about passwords or keys,
// references such as `${VAR}` or `process.env.X`, placeholders, commit SHAs, UUIDs and checksums
// pass. A match names its rule and where the secret lies, never the secret itself.
//
// Every rule runs in time linear in the text (test/core/secret-rules-linear.test.ts). A
// backtracking engine tries a pattern at every start; a rule whose unbounded run can begin at many
// starts inside one run of its characters (`a-a-a-…` for a URL scheme, `eyJ-eyJ-…` for a JWT, a
// long name for an assignment) would rescan that run from each of them: quadratic. Those rules are
// written as a scan from a fixed middle ("://", ".eyJ") or over disjoint runs instead.

import {
  credentialLike,
  credentialName,
  generatedToken,
  randomLike,
  referenceOrPlaceholder,
} from './secret-values.mjs'

/** A rule from a regular expression; the secret is `group` (default: the whole match). */
function patternRule(name, family, source, flags = '', group = 0) {
  const once = new RegExp(source, flags)
  const all = new RegExp(source, `${flags}gd`)
  return {
    name,
    family,
    test: (text) => once.test(text),
    ranges: (text) => [...text.matchAll(all)].map((m) => m.indices[group]),
  }
}

/** A rule from a function listing its matches' ranges (`limit` stops early). */
const scanRule = (name, family, scan) => ({
  name,
  family,
  test: (text) => scan(text, 1).length > 0,
  ranges: (text) => scan(text, Infinity),
})

const WORD = /[A-Za-z0-9_]/
const SCHEME_CHAR = /[A-Za-z0-9+.-]/
const LETTER = /[A-Za-z]/
/** What follows `scheme://` in a URL with credentials: `user:pass@host`, pass ≥ 3 characters. */
const USERINFO = /[^\s/:@]+:([^\s/@]{3,})@[^\s/]/dy

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

/** `scheme://user:pass@host` whose password is not a reference or placeholder; the password's range. */
function urlCredentials(text, limit) {
  const out = []
  for (
    let at = text.indexOf('://');
    at !== -1 && out.length < limit;
    at = text.indexOf('://', at + 1)
  ) {
    if (!schemeEndsAt(text, at)) continue
    USERINFO.lastIndex = at + 3
    const m = USERINFO.exec(text)
    if (m !== null && !referenceOrPlaceholder(m[1])) out.push(m.indices[1])
  }
  return out
}

const JWT_CHAR = /[A-Za-z0-9_-]/
/** A JWT's payload and signature after the header's end: `.eyJ` + ≥ 8, `.`, ≥ 8 characters. */
const JWT_REST = /\.(?=eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8})/g
const JWT_TAIL = /\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/y

/** Where a JWT header `\beyJ[A-Za-z0-9_-]{8,}` ending at `dot` starts, or -1. */
function jwtHeaderStart(text, dot) {
  let start = dot
  while (start > 0 && JWT_CHAR.test(text[start - 1])) start -= 1
  for (let p = start; p <= dot - 11; p += 1) {
    if (text.startsWith('eyJ', p) && (p === start || text[p - 1] === '-')) return p
  }
  return -1
}

/** `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, linear. */
function jwt(text, limit) {
  const out = []
  let after = 0
  for (const m of text.matchAll(JWT_REST)) {
    if (out.length >= limit) break
    if (m.index < after) continue
    const start = jwtHeaderStart(text, m.index)
    if (start === -1) continue
    JWT_TAIL.lastIndex = m.index
    JWT_TAIL.test(text)
    out.push([start, JWT_TAIL.lastIndex])
    after = JWT_TAIL.lastIndex
  }
  return out
}

const NAME_RUN = /[A-Za-z0-9_.-]+/g
// After a name: optional closing quote, then `=`, `:`, `=>` or ` is `, then an optional opening
// quote and the value. Spaces and tabs only, so that each whitespace run is tried a bounded number
// of times; the value stops at white space, quotes, `,`, `;` and `&` (a URL's next parameter) and
// is read to at most 256 characters (enough to judge it), so no name rescans a long value.
const ASSIGN = /["']?[ \t]*(=>|[:=]|(?<=[ \t])is[ \t])[ \t]*["'`]?([^\s"'`,;&]{1,256})/dy
const TRAILING = /[.,:)\]}>]+$/
const NOT_BEFORE_NAME = ':${/@%'

/**
 * Credential assignments in `.env`, shell, YAML, JSON, config and headers: a name ending in a
 * credential word (`DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`, `MY_SERVICE_API_KEY`, `"apiKey"`,
 * `X-Api-Key`, `spring.datasource.password`), then `=`, `:`, `=>` or ` is `, then a value that
 * looks like a credential (see secret-values.mjs). In prose (` is `) the value needs a digit.
 * The names are the disjoint runs of name characters, so the scan is linear.
 */
function credentialAssignment(text, limit) {
  const out = []
  for (const run of text.matchAll(NAME_RUN)) {
    if (out.length >= limit) break
    // A name inside a reference or value (`${NAME:?…}`, `arn:…:secret:…`, a path) assigns nothing.
    if (run.index > 0 && NOT_BEFORE_NAME.includes(text[run.index - 1])) continue
    const strength = credentialName(run[0], text.slice(Math.max(0, run.index - 12), run.index))
    if (strength === undefined) continue
    ASSIGN.lastIndex = run.index + run[0].length
    const m = ASSIGN.exec(text)
    if (m === null) continue
    const value = m[2].replace(TRAILING, '')
    const prose = m[1] !== ':' && m[1] !== '=' && m[1] !== '=>'
    const ok = strength === 'strong' ? credentialLike(value) : randomLike(value)
    if (ok && (!prose || /\d/.test(value)))
      out.push([m.indices[2][0], m.indices[2][0] + value.length])
  }
  return out
}

// `prefix_` or `prefix-` (2–10 letters), up to two short segments (`v1_`, `st_`), then the
// generated part. Only at the start of a run of token characters (the look-behind), so each run
// is tried from one place: linear.
const PREFIXED =
  /(?<![A-Za-z0-9_.-])([A-Za-z]{2,10})[_-](?:[A-Za-z0-9]{1,10}[_-]){0,2}([A-Za-z0-9]{16,})/dg

/** Tokens of providers no shape rule knows: a short prefix and a generated body (see `generatedToken`). */
function prefixedToken(text, limit) {
  const out = []
  for (const m of text.matchAll(PREFIXED)) {
    if (out.length >= limit) break
    if (generatedToken(m[1], m[2])) out.push(m.indices[0])
  }
  return out
}

/** Where a private key block starts, to its `-----END …-----` line (or the end of the text). */
function privateKey(text, limit) {
  const out = []
  const begin = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g
  for (let m = begin.exec(text); m !== null && out.length < limit; m = begin.exec(text)) {
    const end = text.indexOf('-----END ', begin.lastIndex)
    const close = end === -1 ? -1 : text.indexOf('-----', end + 9)
    out.push([m.index, close === -1 ? text.length : close + 5])
    begin.lastIndex = out.at(-1)[1]
  }
  return out
}

/** The generic rules, most specific first. */
export const GENERIC_RULES = Object.freeze([
  scanRule('private_key', 'key_block', privateKey),
  patternRule(
    'aws_access_key_id',
    'token_shape',
    String.raw`\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b`,
  ),
  patternRule(
    'github_token',
    'token_shape',
    String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{20,})`,
  ),
  patternRule('gitlab_token', 'token_shape', String.raw`\bglpat-[A-Za-z0-9_-]{20,}`),
  patternRule(
    'openai_api_key',
    'token_shape',
    String.raw`\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}`,
  ),
  patternRule('slack_token', 'token_shape', String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`),
  patternRule('google_api_key', 'token_shape', String.raw`\bAIza[0-9A-Za-z_-]{35}\b`),
  patternRule('stripe_key', 'token_shape', String.raw`\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}`),
  scanRule('jwt', 'token_shape', jwt),
  patternRule(
    'authorization_header',
    'header',
    String.raw`\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{12,})`,
    'i',
    1,
  ),
  patternRule('bearer_token', 'header', String.raw`\bbearer\s+([A-Za-z0-9._~+/-]{24,}=*)`, 'i', 1),
  scanRule('url_credentials', 'connection_string', urlCredentials),
  scanRule('credential_assignment', 'assignment', credentialAssignment),
  scanRule('prefixed_token', 'token_shape', prefixedToken),
])

/** The first rule of `rules` the text matches (`{rule}`, the rule name only), or undefined. */
export function secretFinder(rules) {
  return (text) => {
    for (const rule of rules) if (rule.test(text)) return { rule: rule.name }
    return undefined
  }
}

/** Every match of `rules` in the text: `{rule, start, end}`, in text order, overlaps merged. */
export function secretMatches(text, rules) {
  const found = rules.flatMap((r) =>
    r.ranges(text).map(([start, end]) => ({ rule: r.name, start, end })),
  )
  found.sort((a, b) => a.start - b.start || b.end - a.end)
  const merged = []
  for (const m of found) {
    const last = merged.at(-1)
    if (last !== undefined && m.start < last.end) last.end = Math.max(last.end, m.end)
    else merged.push({ ...m })
  }
  return merged
}

/** The text with every match of `rules` replaced by `[secret withheld: <rule>]`. */
export function maskSecrets(text, rules) {
  let out = ''
  let at = 0
  for (const m of secretMatches(text, rules)) {
    out += `${text.slice(at, m.start)}[secret withheld: ${m.rule}]`
    at = m.end
  }
  return out + text.slice(at)
}
