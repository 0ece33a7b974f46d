/**
 * Synthetic credentials for the secret corpus (test/support/secret-corpus.ts): per provider, a
 * generator of values in that provider's published token shape, from a seeded generator. Every
 * value is random, made here at run time: none is, or was, a real credential.
 */
import { mulberry32 } from '../../bench/bench-data.js'

/** A seeded pseudo-random generator (mulberry32): the corpus is the same on every run. */
export const seeded: (seed: number) => () => number = mulberry32

export type Rand = () => number

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const HEX = '0123456789abcdef'
const B64 = `${ALNUM}+/`
const B64URL = `${ALNUM}-_`
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
export const chars = (r: Rand, set: string, n: number): string =>
  Array.from({ length: n }, () => set[Math.floor(r() * set.length)]).join('')
const digits = (r: Rand, n: number) => chars(r, '0123456789', n)
const uuid = (r: Rand) =>
  [8, 4, 4, 4, 12].map((n, i) => (i === 2 ? `4${chars(r, HEX, 3)}` : chars(r, HEX, n))).join('-')
const b64 = (s: string) => Buffer.from(s).toString('base64')

/** What kind of secret a credential is (the corpus reports rates per kind). */
export type CredentialKind =
  | 'provider_token'
  | 'password'
  | 'private_key'
  | 'service_account'
  | 'connection_string'
  | 'auth_header'

/** One kind of credential: the variable it is kept in, how people name it, and a generator. */
export interface CredentialShape {
  readonly provider: string
  readonly kind: CredentialKind
  /** The environment variable it is usually kept in. */
  readonly variable: string
  /** How a person names it in a sentence. */
  readonly label: string
  readonly make: (r: Rand) => string
  /** A multi-line value (a key block): no URL or single-line forms. */
  readonly block?: boolean
}

const token = (
  provider: string,
  variable: string,
  label: string,
  make: (r: Rand) => string,
): CredentialShape => ({ provider, kind: 'provider_token', variable, label, make })

/** Provider token shapes: 26 providers. */
export const PROVIDER_TOKENS: readonly CredentialShape[] = [
  token(
    'aws',
    'AWS_ACCESS_KEY_ID',
    'AWS access key id',
    (r) => `AKIA${chars(r, UPPER_DIGITS, 16)}`,
  ),
  token('aws', 'AWS_SECRET_ACCESS_KEY', 'AWS secret access key', (r) => chars(r, B64, 40)),
  token('github', 'GITHUB_TOKEN', 'GitHub token', (r) => `ghp_${chars(r, ALNUM, 36)}`),
  token(
    'github',
    'GH_PAT',
    'GitHub fine-grained token',
    (r) => `github_pat_11${chars(r, UPPER_DIGITS, 20)}_${chars(r, ALNUM, 59)}`,
  ),
  token('gitlab', 'GITLAB_TOKEN', 'GitLab token', (r) => `glpat-${chars(r, B64URL, 20)}`),
  token(
    'slack',
    'SLACK_BOT_TOKEN',
    'Slack bot token',
    (r) => `xoxb-${digits(r, 12)}-${digits(r, 13)}-${chars(r, ALNUM, 24)}`,
  ),
  token(
    'slack',
    'SLACK_WEBHOOK_URL',
    'Slack webhook',
    (r) =>
      `https://hooks.slack.com/services/T${chars(r, UPPER_DIGITS, 10)}/B${chars(r, UPPER_DIGITS, 10)}/${chars(r, ALNUM, 24)}`,
  ),
  token(
    'stripe',
    'STRIPE_SECRET_KEY',
    'Stripe secret key',
    (r) => `sk_live_${chars(r, ALNUM, 99)}`,
  ),
  token(
    'openai',
    'OPENAI_API_KEY',
    'OpenAI API key',
    (r) => `sk-proj-${chars(r, B64URL, 74)}T3BlbkFJ${chars(r, B64URL, 74)}`,
  ),
  token(
    'anthropic',
    'ANTHROPIC_API_KEY',
    'Anthropic API key',
    (r) => `sk-ant-api03-${chars(r, B64URL, 93)}AA`,
  ),
  token('google', 'GOOGLE_API_KEY', 'Google API key', (r) => `AIza${chars(r, B64URL, 35)}`),
  token('npm', 'NPM_TOKEN', 'npm token', (r) => `npm_${chars(r, ALNUM, 36)}`),
  token(
    'sendgrid',
    'SENDGRID_API_KEY',
    'SendGrid API key',
    (r) => `SG.${chars(r, B64URL, 22)}.${chars(r, B64URL, 43)}`,
  ),
  token(
    'shopify',
    'SHOPIFY_ACCESS_TOKEN',
    'Shopify access token',
    (r) => `shpat_${chars(r, HEX, 32)}`,
  ),
  token('linear', 'LINEAR_API_KEY', 'Linear API key', (r) => `lin_api_${chars(r, ALNUM, 40)}`),
  token('twilio', 'TWILIO_API_KEY', 'Twilio API key', (r) => `SK${chars(r, HEX, 32)}`),
  token('twilio', 'TWILIO_AUTH_TOKEN', 'Twilio auth token', (r) => chars(r, HEX, 32)),
  token('mailgun', 'MAILGUN_API_KEY', 'Mailgun API key', (r) => `key-${chars(r, HEX, 32)}`),
  token(
    'digitalocean',
    'DIGITALOCEAN_TOKEN',
    'DigitalOcean token',
    (r) => `dop_v1_${chars(r, HEX, 64)}`,
  ),
  token('huggingface', 'HF_TOKEN', 'Hugging Face token', (r) => `hf_${chars(r, LETTERS, 34)}`),
  token(
    'pypi',
    'PYPI_TOKEN',
    'PyPI upload token',
    (r) => `pypi-AgEIcHlwaS5vcmc${chars(r, B64URL, 140)}`,
  ),
  token('databricks', 'DATABRICKS_TOKEN', 'Databricks token', (r) => `dapi${chars(r, HEX, 32)}`),
  token('heroku', 'HEROKU_API_KEY', 'Heroku API key', uuid),
  token('datadog', 'DD_API_KEY', 'Datadog API key', (r) => chars(r, HEX, 32)),
  token('vault', 'VAULT_TOKEN', 'Vault token', (r) => `hvs.${chars(r, B64URL, 90)}`),
  token(
    'telegram',
    'TELEGRAM_BOT_TOKEN',
    'Telegram bot token',
    (r) => `${digits(r, 10)}:AA${chars(r, B64URL, 33)}`,
  ),
  token(
    '1password',
    'OP_SERVICE_ACCOUNT_TOKEN',
    '1Password service account token',
    (r) => `ops_ey${chars(r, B64, 300)}fQ==`,
  ),
  token('azure', 'AZURE_STORAGE_KEY', 'Azure storage account key', (r) => `${chars(r, B64, 86)}==`),
  token(
    'jwt',
    'SESSION_TOKEN',
    'session JWT',
    (r) => `eyJhbGciOiJIUzI1NiJ9.eyJ${chars(r, B64URL, 40)}.${chars(r, B64URL, 43)}`,
  ),
]

const WORDS = [
  'Winter',
  'Falcon',
  'Copper',
  'Harbor',
  'Maple',
  'Orbit',
  'Velvet',
  'Quartz',
  'Tiger',
  'Nimbus',
]
const SYMBOLS = '!#%&*@^~'

const password = (variable: string, label: string): CredentialShape => ({
  provider: 'password',
  kind: 'password',
  variable,
  label,
  make: (r) =>
    pick(r, [
      () => `${pick(r, WORDS)}${digits(r, 4)}${chars(r, SYMBOLS, 1)}`,
      () => `${chars(r, ALNUM, 12)}${chars(r, SYMBOLS, 2)}`,
      () => `${pick(r, WORDS).toLowerCase()}-${pick(r, WORDS)}-${digits(r, 2)}`,
      () => chars(r, `${ALNUM}${SYMBOLS}`, 20),
    ])(),
})

/** Passwords: as people choose them, and as generators make them. */
export const PASSWORDS: readonly CredentialShape[] = [
  password('DB_PASSWORD', 'database password'),
  password('POSTGRES_PASSWORD', 'Postgres password'),
  password('ADMIN_PASSWORD', 'admin password'),
  password('SMTP_PASS', 'SMTP password'),
  password('REDIS_PASSWORD', 'Redis password'),
  password('KEYSTORE_PASSPHRASE', 'keystore passphrase'),
]

const keyBlock = (r: Rand, type: string): string =>
  [
    `-----BEGIN ${type}PRIVATE KEY-----`,
    ...Array.from({ length: 6 }, () => chars(r, B64, 64)),
    `${chars(r, B64, 20)}==`,
    `-----END ${type}PRIVATE KEY-----`,
  ].join('\n')

/** Private key blocks and a cloud service account's key file. */
export const KEYS: readonly CredentialShape[] = [
  {
    provider: 'rsa',
    kind: 'private_key',
    variable: 'SSH_PRIVATE_KEY',
    label: 'deploy key',
    block: true,
    make: (r) => keyBlock(r, 'RSA '),
  },
  {
    provider: 'openssh',
    kind: 'private_key',
    variable: 'DEPLOY_KEY',
    label: 'SSH key',
    block: true,
    make: (r) => keyBlock(r, 'OPENSSH '),
  },
  {
    provider: 'ec',
    kind: 'private_key',
    variable: 'SIGNING_KEY',
    label: 'signing key',
    block: true,
    make: (r) => keyBlock(r, 'EC '),
  },
  {
    provider: 'pkcs8',
    kind: 'private_key',
    variable: 'TLS_KEY',
    label: 'TLS key',
    block: true,
    make: (r) => keyBlock(r, ''),
  },
  {
    provider: 'gcp',
    kind: 'service_account',
    variable: 'GOOGLE_APPLICATION_CREDENTIALS_JSON',
    label: 'service account key',
    block: true,
    make: (r) =>
      JSON.stringify(
        {
          type: 'service_account',
          project_id: `acme-${chars(r, 'abcdefghijklmnopqrstuvwxyz', 6)}-${digits(r, 6)}`,
          private_key_id: chars(r, HEX, 40),
          private_key: `${keyBlock(r, '')}\n`,
          client_email: `ci-runner@acme-prod.iam.gserviceaccount.com`,
          client_id: digits(r, 21),
          token_uri: 'https://oauth2.googleapis.com/token',
        },
        null,
        2,
      ),
  },
]

const conn = (provider: string, make: (r: Rand, pw: string) => string): CredentialShape => ({
  provider,
  kind: 'connection_string',
  variable: 'DATABASE_URL',
  label: `${provider} connection string`,
  make: (r) =>
    make(
      r,
      password('X', 'x')
        .make(r)
        .replace(/[@/:#%^&*!~]/g, ''),
    ),
})

/** Connection strings with a password in them. */
export const CONNECTIONS: readonly CredentialShape[] = [
  conn(
    'postgres',
    (r, pw) => `postgres://app_${chars(r, HEX, 4)}:${pw}@db-${digits(r, 2)}.internal:5432/orders`,
  ),
  conn('mysql', (r, pw) => `mysql://root:${pw}@10.0.${digits(r, 1)}.${digits(r, 2)}:3306/shop`),
  conn(
    'mongodb',
    (r, pw) =>
      `mongodb+srv://svc:${pw}@cluster${digits(r, 1)}.a${chars(r, HEX, 5)}.mongodb.net/app?retryWrites=true`,
  ),
  conn('redis', (r, pw) => `redis://default:${pw}@cache.internal:6379/0`),
  conn('amqp', (r, pw) => `amqps://worker:${pw}@mq-${digits(r, 2)}.internal/vhost`),
]

/** Authorization headers. */
export const HEADERS: readonly CredentialShape[] = [
  {
    provider: 'basic',
    kind: 'auth_header',
    variable: 'BASIC_AUTH',
    label: 'basic auth header',
    make: (r) => `Basic ${b64(`deploy:${chars(r, ALNUM, 14)}`)}`,
  },
  {
    provider: 'bearer',
    kind: 'auth_header',
    variable: 'AUTH_HEADER',
    label: 'bearer header',
    make: (r) => `Bearer ${chars(r, B64URL, 48)}`,
  },
  {
    provider: 'token',
    kind: 'auth_header',
    variable: 'API_AUTH',
    label: 'API token header',
    make: (r) => `token ${chars(r, HEX, 40)}`,
  },
]
