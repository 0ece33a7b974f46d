/**
 * The secret rules as they were before their linear-time rewrite, kept as the oracle: the rewritten rules
 * must match exactly what these matched (test/core/secret-rules-linear.test.ts), and
 * `npm run bench:secrets` times both. Two of them (`url_credentials`, `jwt`) take quadratic time
 * on adversarial input; never use them outside tests and benchmarks.
 */
const ASSIGNMENT =
  /\b(?:password|passwd|pwd|passphrase|secret|client[_-]?secret|api[_-]?key|access[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|private[_-]?key)\b["']?\s*(?:[:=]|=>|\bis\b)\s*["'`]?([^\s"'`,;]+)/gi

function credentialLike(value: string): boolean {
  if (value.length < 8) return false
  if (/[$({[<]|env\b|environ/i.test(value)) return false
  if (/^[~.]?\//.test(value)) return false
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length
  return classes >= 2 && !/^[a-z]+$/i.test(value)
}

const pattern =
  (re: RegExp) =>
  (text: string): boolean =>
    re.test(text)

/** Rule name → the rule's test as it was. */
export const SECRET_RULES_BEFORE: Readonly<Record<string, (text: string) => boolean>> = {
  private_key: pattern(/-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/),
  aws_access_key_id: pattern(/\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/),
  github_token: pattern(/\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{20,})/),
  gitlab_token: pattern(/\bglpat-[A-Za-z0-9_-]{20,}/),
  openai_api_key: pattern(/\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{20,}/),
  slack_token: pattern(/\bxox[abposr]-[A-Za-z0-9-]{10,}/),
  google_api_key: pattern(/\bAIza[0-9A-Za-z_-]{35}\b/),
  stripe_key: pattern(/\b[rsp]k_(?:live|test)_[0-9A-Za-z]{16,}/),
  jwt: pattern(/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/),
  authorization_header: pattern(
    /\bauthorization\s*:\s*(?:bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{12,}/i,
  ),
  bearer_token: pattern(/\bbearer\s+[A-Za-z0-9._~+/-]{24,}=*/i),
  url_credentials: pattern(/\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]{3,}@[^\s/]+/i),
  credential_assignment: (text) => {
    for (const m of text.matchAll(ASSIGNMENT)) if (credentialLike(m[1] ?? '')) return true
    return false
  },
}
