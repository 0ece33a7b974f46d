/**
 * The secret corpus: synthetic credentials (test/support/secret-providers.ts) in the forms they
 * leak in — a `.env` line, `export`, YAML, JSON, a sentence, a pasted log line, a URL — and a
 * negative set of text that must pass (code, prose about passwords, SHAs, UUIDs, checksums,
 * placeholders, references). Generated from a fixed seed, so every run measures the same texts.
 * Used by test/core/secret-corpus.test.ts (the rates each write path must reach) and
 * `npm run bench:secrets` (the rates per path and per rule family).
 */
import {
  chars,
  CONNECTIONS,
  type CredentialKind,
  type CredentialShape,
  HEADERS,
  KEYS,
  PASSWORDS,
  pick,
  PROVIDER_TOKENS,
  type Rand,
  seeded,
} from './secret-providers.js'

export const LEAK_FORMS = ['env', 'export', 'yaml', 'json', 'sentence', 'log', 'url'] as const
export type LeakForm = (typeof LEAK_FORMS)[number]

/** One corpus text holding one credential. */
export interface SecretSample {
  readonly provider: string
  readonly kind: CredentialKind
  readonly form: LeakForm
  readonly text: string
}

const HEX = '0123456789abcdef'
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const camel = (v: string) =>
  v.toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
const quoteYaml = (v: string) => (/^[A-Za-z0-9_./+=-]+$/.test(v) ? v : `'${v}'`)
const indent = (v: string) => v.replace(/\n/g, '\n    ')

/** The texts of one single-line credential in each form. */
function lineForms(s: CredentialShape, v: string, i: number): [LeakForm, string][] {
  const name = s.variable.toLowerCase()
  const header = s.kind === 'auth_header'
  const value = header ? `Authorization: ${v}` : v
  return [
    ['env', header ? `HTTP_HEADER="${value}"` : `${s.variable}=${v}`],
    ['export', header ? `export CURL_OPTS="-H '${value}'"` : `export ${s.variable}="${v}"`],
    [
      'yaml',
      header ? `headers:\n  Authorization: ${v}` : `${s.provider}:\n  ${name}: ${quoteYaml(v)}`,
    ],
    [
      'json',
      JSON.stringify(
        header
          ? { headers: { Authorization: v } }
          : { service: s.provider, [camel(s.variable)]: v },
      ),
    ],
    [
      'sentence',
      header
        ? `FYI the staging API only answers when you send ${value}, so keep that around.`
        : s.kind === 'connection_string'
          ? `You can reach the staging ${s.provider} database at ${v} until the migration is done.`
          : `FYI, the staging ${s.label} is ${v} until we rotate it next week.`,
    ],
    [
      'log',
      i % 2 === 0
        ? s.kind === 'connection_string'
          ? `2026-12-03T10:15:02.114Z INFO  [pool] connecting to ${v} (attempt 2 of 5)`
          : `2026-12-03T10:15:02.114Z DEBUG [${s.provider}-client] POST /v2/sync ${header ? value : `${name}=${v}`} status=200 in 182ms`
        : s.kind === 'password'
          ? `Dec 03 10:15:02 ci-runner-7 migrate.sh[2231]: + psql "host=db.internal user=app password=${v} dbname=orders" -f schema.sql`
          : `Dec 03 10:15:02 ci-runner-7 deploy.sh[2231]: + curl -sf -H '${header ? value : `Authorization: Bearer ${v}`}' https://api.acme-corp.io/v2/deploy`,
    ],
    [
      'url',
      s.kind === 'connection_string'
        ? v
        : `https://api.acme-corp.io/v1/export?format=csv&${header ? 'auth' : 'access_token'}=${encodeURIComponent(header ? v.split(' ')[1]! : v)}`,
    ],
  ]
}

/** The texts of one key block (multi-line) in the forms a block leaks in. */
function blockForms(s: CredentialShape, v: string): [LeakForm, string][] {
  return [
    ['env', `${s.variable}="${v.replace(/\n/g, '\\n')}"`],
    ['export', `export ${s.variable}='${v}'`],
    ['yaml', `secrets:\n  ${s.variable.toLowerCase()}: |\n    ${indent(v)}`],
    ['json', JSON.stringify({ name: s.variable, value: v })],
    [
      'sentence',
      `Here is the ${s.label} for the build box, paste it into the CI settings:\n\n${v}`,
    ],
    ['log', `2026-12-03T10:15:02Z WARN  loaded key material from env: ${v.replace(/\n/g, '\\n')}`],
  ]
}

/** Every credential shape, `perShape` samples each, in every form it leaks in. */
export function secretCorpus(perShape = 3, seed = 20261203): SecretSample[] {
  const r = seeded(seed)
  const out: SecretSample[] = []
  const shapes = [...PROVIDER_TOKENS, ...PASSWORDS, ...KEYS, ...CONNECTIONS, ...HEADERS]
  for (const s of shapes) {
    for (let i = 0; i < perShape; i += 1) {
      const v = s.make(r)
      for (const [form, text] of s.block ? blockForms(s, v) : lineForms(s, v, i))
        out.push({ provider: s.provider, kind: s.kind, form, text })
    }
  }
  return out
}

const sha = (r: Rand, n = 40) => chars(r, HEX, n)
const uuid = (r: Rand) => [8, 4, 4, 4, 12].map((n) => chars(r, HEX, n)).join('-')

/** Text that must pass: fixed lines, then templates filled with random ids and hashes. */
const NEGATIVE_LINES = [
  'Passwords must be rotated every 90 days.',
  'The password policy requires 12 characters and one symbol.',
  'password: required',
  'Never paste your API key into a chat; use the secret manager.',
  'The token expires after 3600 seconds and is refreshed by the client.',
  'Reset the admin password from the console, not with SQL.',
  'The staging password is stored in 1Password under "staging-db".',
  'My password is 12 characters long.',
  'Store the key in Vault at secret/data/prod/payments.',
  'Our secret sauce is aggressive caching.',
  'Bearer tokens expire after 24 hours.',
  'GitHub tokens start with ghp_ and npm tokens with npm_.',
  'Use sk-learn for the baseline model.',
  'const password = process.env.DB_PASSWORD',
  'api_key = os.environ["API_KEY"]',
  'token: ${{ secrets.GITHUB_TOKEN }}',
  'password: "{{ vault_db_password }}"',
  'DB_PASSWORD=${DB_PASSWORD}',
  'export NPM_TOKEN=$NPM_TOKEN',
  'AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY:?missing}',
  'password = getpass.getpass("Password: ")',
  "if (!token) throw new Error('missing token')",
  "const apiKey = config.get('apiKey')",
  'api_key = config.api_key',
  'headers: { Authorization: `Bearer ${token}` }',
  '"Authorization": "Bearer <your-token>"',
  'curl -H "Authorization: Bearer $API_TOKEN" https://api.acme-corp.io/v1/me',
  'private_key_path: ~/.ssh/id_ed25519',
  'ssh -i ~/.ssh/deploy_key git@github.com',
  'IdentityFile ~/.ssh/id_rsa',
  'private_key = ~/.ssh/id_ed25519',
  'password_min_length: 12',
  'PASSWORD_HASHER=argon2id',
  'token_ttl=3600',
  'max_tokens: 4096',
  'secret_name: prod/db/credentials',
  'api_key_header: X-Api-Key',
  'sort_key: created_at_desc',
  'primary_key: user_id',
  'cache_key: user_123_profile_v2',
  'credentials: same-origin',
  'DATABASE_URL=postgres://user:password@localhost:5432/dev',
  'DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app',
  'mysql://root@localhost/test',
  'See https://docs.acme-corp.io/auth/tokens for how tokens are issued.',
  'git@github.com:acme/app.git',
  'api_key: YOUR_API_KEY_HERE',
  'OPENAI_API_KEY=sk-...',
  'STRIPE_SECRET_KEY=<stripe secret key>',
  'GITHUB_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxx',
  'password: ********',
  'client_secret: changeme',
  'aws_secret_access_key = REPLACE_ME',
  'vault kv get -field=password secret/prod/db',
  'password: op://Engineering/db-prod/password',
  'secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-AbCdEf',
  'kubectl create secret generic db --from-literal=password="$DB_PASSWORD"',
  'Rotate keys with `powercontext admin rotate --dry-run`.',
  'The JWT header is base64url JSON, e.g. {"alg":"HS256"}.',
  'test_ParsesUtf8HeadersCorrectly()',
  'useMemoryStore(initialState)',
  'color: #ff8800; background: #0a0a0a;',
  'node_modules/.pnpm/@types+node@20.11.5/node_modules/@types/node/index.d.ts',
  'Upgraded react from 18.2.0 to 18.3.1 and vite to 5.4.11.',
  'The build finished in 42.7 s on runner ubuntu-22.04.',
  'key: app.kubernetes.io/name',
  'secretKeyRef:\n  name: db-credentials\n  key: password',
  'If the auth token is missing the server answers 401.',
  'The API key is rotated monthly by the platform team.',
  'main.4f9a8b7c6d5e4f3a2b1c.js 142.3 kB │ gzip: 45.1 kB',
  'pod/api-7d9f8c6b5-x2k4p   1/1   Running   0   3d',
  'feature-flag-2026-q4-rollout',
  '192.168.1.17 - - [03/Dec/2026:10:15:02 +0000] "GET /health HTTP/1.1" 200 2',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
]

const NEGATIVE_TEMPLATES: readonly ((r: Rand) => string)[] = [
  (r) => `commit ${sha(r)}\nAuthor: Dana Lee <dana@acme-corp.io>\n\n    fix: retry uploads on 503`,
  (r) => `Merged ${sha(r, 7)}..${sha(r, 7)} into main (fast-forward).`,
  (r) => `sha256: ${sha(r, 64)}`,
  (r) => `${sha(r, 64)}  powercontext-1.4.2.tgz`,
  (r) => `"integrity": "sha512-${chars(r, `${ALNUM}+/`, 86)}=="`,
  (r) => `image: ghcr.io/acme/api@sha256:${sha(r, 64)}`,
  (r) => `request_id=${uuid(r)} status=200 duration_ms=${Math.floor(r() * 900)}`,
  (r) => `Idempotency-Key: ${uuid(r)}`,
  (r) => `trace_id: ${sha(r, 32)} span_id: ${sha(r, 16)}`,
  (r) => `md5sum ${sha(r, 32)}  backup-2026-12-03.tar.gz`,
  (r) => `etag: "${sha(r, 32)}"`,
  (r) => `The memory mem_${sha(r, 26)} cites source src_${sha(r, 32)}.`,
  (r) => `docker run --rm ${sha(r, 12)} && docker rm ${sha(r, 64)}`,
  (r) => `Fixed in ${sha(r, 40)}; see the PR for details.`,
  (r) => `user ${uuid(r)} logged in from 10.0.${Math.floor(r() * 255)}.${Math.floor(r() * 255)}`,
  (r) => `checksum = "${sha(r, 64)}"`,
  (r) =>
    `version: ${pick(r, ['1', '2', '3'])}.${Math.floor(r() * 20)}.${Math.floor(r() * 20)} (build ${sha(r, 8)})`,
  (r) => `export NODE_OPTIONS="--max-old-space-size=${pick(r, ['2048', '4096', '8192'])}"`,
  (r) => `The password reset link for ticket #${Math.floor(r() * 99999)} expired; send a new one.`,
  (r) =>
    `- [x] rotate the ${pick(r, ['Stripe', 'GitHub', 'npm', 'Slack'])} token (done by ${pick(r, ['Ana', 'Bo', 'Chen'])})`,
]

/** The negative set: fixed lines and `perTemplate` fillings of each template. */
export function negativeCorpus(perTemplate = 10, seed = 31122026): string[] {
  const r = seeded(seed)
  const filled = NEGATIVE_TEMPLATES.flatMap((t) => Array.from({ length: perTemplate }, () => t(r)))
  return [...NEGATIVE_LINES, ...filled]
}
