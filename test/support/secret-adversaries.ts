/**
 * Adversarial inputs for the secret rules: per rule (ours and secretlint's), texts built to make a
 * backtracking pattern rescan long runs from many starts, with the answer each must give. Shared
 * by test/core/secret-rules-linear.test.ts (correctness at the maximum sizes) and
 * `npm run bench:secrets` (time per rule, before and after).
 */

/** The largest text a rule is given: a captured source's content (1,000,000 UTF-8 bytes). */
export const MAX_RULE_INPUT_BYTES = 1_000_000

export interface Adversary {
  readonly rule: string
  readonly name: string
  /** Whether the rule matches it. */
  readonly matches: boolean
  /** The text at about `bytes` (ASCII) bytes. */
  make(bytes: number): string
}

/** `unit` repeated, then `tail`, at about `bytes` (leading spaces make up a long unit's rest). */
const fill = (unit: string, bytes: number, tail = ''): string => {
  const n = Math.max(1, Math.floor((bytes - tail.length) / unit.length))
  const rest = unit.length > 16 ? Math.max(0, bytes - tail.length - n * unit.length) : 0
  return ' '.repeat(rest) + unit.repeat(n) + tail
}

const a = (rule: string, name: string, matches: boolean, unit: string, tail = ''): Adversary => ({
  rule,
  name,
  matches,
  make: (bytes) => fill(unit, bytes, tail),
})

// Built at run time so that no scanner mistakes this file for a leak.
const JWT_TAIL = `.${'eyJ'}${'p'.repeat(8)}.${'s'.repeat(8)}`

export const ADVERSARIES: readonly Adversary[] = [
  a('url_credentials', 'a-a-a-… (a scheme run without ://)', false, 'a-'),
  a('url_credentials', 'a-a-a-… then ://user:s3cr3t@host', true, 'a-', '://user:s3cr3t@host'),
  a('url_credentials', '://u:${P}@h://u:${P}@h… (references only)', false, '://u:${P}@h'),
  {
    rule: 'url_credentials',
    name: 'x://u:ppp… (no @)',
    matches: false,
    make: (bytes) => `x://u:${'p'.repeat(Math.max(3, bytes - 6))}`,
  },
  a('url_credentials', 'a://a://a://…', false, 'a://'),
  {
    rule: 'url_credentials',
    name: 'x://a:a:a:… (no @)',
    matches: false,
    make: (bytes) => `x://${fill('a:', bytes - 4)}`,
  },
  a('jwt', 'eyJ-eyJ-… (no dot)', false, 'eyJ-'),
  a('jwt', 'eyJ-eyJ-… then a payload and signature', true, 'eyJ-', JWT_TAIL),
  a('jwt', '.eyJ.eyJ…', false, '.eyJ'),
  a('jwt', 'eyJaaaaaaa.eyJ… (7-character parts)', false, `eyJ${'a'.repeat(7)}.`),
  {
    rule: 'private_key',
    name: '-----BEGIN A A A …',
    matches: false,
    make: (bytes) => `-----BEGIN ${fill('A ', bytes - 11)}`,
  },
  a('private_key', '-----BEGIN -----BEGIN …', false, '-----BEGIN '),
  a('credential_assignment', 'password password …', false, 'password '),
  a('credential_assignment', 'password is password is …', false, 'password is '),
  a('credential_assignment', 'api_key=api_key=…', true, 'api_key='),
  a(
    'authorization_header',
    'authorization: bearer x authorization: bearer x …',
    false,
    'authorization: bearer x ',
  ),
  a('authorization_header', 'authorization:::…', false, 'authorization:'),
  a('bearer_token', 'bearer bearer …', false, 'bearer '),
  a('openai_api_key', 'sk- sk- …', false, 'sk- '),
  a('github_token', 'ghp_ + 29 characters, repeated', false, `ghp_${'a'.repeat(29)} `),
  a('gitlab_token', 'glpat- + 19 characters, repeated', false, `glpat-${'a'.repeat(19)} `),
  a('slack_token', 'xoxb- + 9 characters, repeated', false, `xoxb-${'a'.repeat(9)} `),
  a('google_api_key', 'AIza + 34 characters, repeated', false, `AIza${'a'.repeat(34)} `),
  a('stripe_key', 'sk_live_ + 15 characters, repeated', false, `sk_live_${'a'.repeat(15)} `),
  a('aws_access_key_id', 'AKIA + 15 characters, repeated', false, `AKIA${'A'.repeat(15)} `),
  {
    rule: 'credential_assignment',
    name: 'one name run (aaaa…)',
    matches: false,
    make: (bytes) => 'a'.repeat(bytes),
  },
  a('credential_assignment', 'token=${x}token=${x}… (references)', false, 'token=${x}'),
  {
    rule: 'credential_assignment',
    name: 'password, then white space to the end',
    matches: false,
    make: (bytes) => `password${' '.repeat(Math.max(1, bytes - 9))}x`,
  },
  a('credential_assignment', 'password: password: …', false, 'password: '),
  a('prefixed_token', 'ab_ab_ab_… (one run of short segments)', false, 'ab_'),
  {
    rule: 'prefixed_token',
    name: 'ab- then lower-case letters',
    matches: false,
    make: (bytes) => `ab-${'a'.repeat(bytes - 3)}`,
  },
  {
    rule: 'prefixed_token',
    name: 'ab- then a generated body',
    matches: true,
    make: (bytes) => `ab-${fill('aB3', bytes - 3)}`,
  },
  a('secretlint/slack', 'xoxb- + 41 letters, repeated', false, `xoxb-${'a'.repeat(41)} `),
  a('secretlint/slack', 'xoxb-a-xoxb-a-…', true, 'xoxb-a-'),
  a(
    'secretlint/database-connection-string',
    'postgres://a:b@ repeated (1-character passwords)',
    false,
    'postgres://a:b@',
  ),
  a('secretlint/database-connection-string', 'mysql:// mysql:// …', false, 'mysql:// '),
  a('secretlint/basicauth', 'http://a:b@ repeated', false, 'http://a:b@'),
  a('secretlint/sendgrid', 'SG.aaa SG.aaa …', false, 'SG.aaa '),
  a(
    'secretlint/privatekey',
    'key headers without an end',
    false,
    `-----BEGIN PRIVATE KEY-----\n${'A'.repeat(150)}\n`,
  ),
  a(
    'secretlint/1password',
    'ops_ey + 1,300 characters, repeated',
    false,
    `ops_ey${'A'.repeat(1300)} `,
  ),
  a('secretlint/npm', 'http:// http:// …', false, 'http:// '),
  a('secretlint/aws', 'secret_key= secret_key= …', false, 'secret_key= '),
  a('secretlint/github', 'ghp_ + 35 characters, repeated', false, `ghp_${'a'.repeat(35)} `),
  a('secretlint/shopify', 'shpat_ + 31 characters, repeated', false, `shpat_${'a'.repeat(31)} `),
  a('secretlint/linear', 'lin_api_ + 31 characters, repeated', false, `lin_api_${'a'.repeat(31)} `),
  a(
    'secretlint/anthropic',
    'sk-ant-api03- + 89 characters, repeated',
    false,
    `sk-ant-api03-${'a'.repeat(89)} `,
  ),
  a('secretlint/openai', 'sk-proj- + 57 characters, repeated', false, `sk-proj-${'a'.repeat(57)} `),
]
