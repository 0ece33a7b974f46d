import { describe, expect, it } from 'vitest'

import {
  findSecret,
  looksLikeSecret,
  refuseSourceSecrets,
  refuseSourceSecretsSliced,
  SECRET_RULES,
} from '../../src/core/secret-rules.js'

// Built at run time so that no scanner mistakes this file for a leak.
const fake = (prefix: string, body: string) => prefix + body

describe('secret rules', () => {
  const secrets: [string, string][] = [
    ['private_key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow…'],
    ['private_key', '-----BEGIN OPENSSH PRIVATE KEY-----'],
    ['private_key', '-----BEGIN PRIVATE KEY-----'],
    ['aws_access_key_id', `key ${fake('AKIA', 'IOSFODNN7EXAMPLE')} in the env`],
    ['github_token', fake('ghp_', 'a'.repeat(36))],
    ['github_token', fake('github_pat_', '11ABCDEFG0123456789_abcdefghij')],
    ['gitlab_token', fake('glpat-', 'x'.repeat(20))],
    ['openai_api_key', `OPENAI=${fake('sk-proj-', 'Ab3'.repeat(10))}`],
    ['openai_api_key', fake('sk-ant-', 'api03-' + 'z'.repeat(30))],
    ['slack_token', fake('xoxb-', '1234567890-abcdef')],
    ['google_api_key', fake('AIza', 'Sy'.repeat(17) + 'A')],
    ['stripe_key', fake('sk_live_', '4eC39HqLyjWDarjtT1zdp7dc')],
    [
      'jwt',
      `${fake('eyJ', 'hbGciOiJIUzI1NiJ9')}.${fake('eyJ', 'zdWIiOiIxMjM0NTY3ODkwIn0')}.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`,
    ],
    ['authorization_header', 'Authorization: Bearer abcdef0123456789xyz'],
    ['bearer_token', 'curl -H "bearer 0123456789abcdefghijABCDEFGH"'],
    ['url_credentials', 'DATABASE_URL=postgres://admin:s3cr3t@db.internal:5432/app'],
    ['credential_assignment', 'password: Hunter2!'],
    ['credential_assignment', 'the staging password is Winter2024'],
    ['credential_assignment', 'api_key = "9f8e7d6c5b4a3210"'],
    ['credential_assignment', 'client_secret: my-client-secret-value'],
  ]
  it.each(secrets)('finds %s', (rule, text) => {
    expect(findSecret(text)).toEqual({ rule })
    expect(looksLikeSecret(text)).toBe(true)
  })

  const prose = [
    'Passwords must be rotated every 90 days.',
    'The password policy requires 12 characters.',
    'password: required',
    'Read the API key from process.env.OPENAI_API_KEY, never hard-code it.',
    'api_key = os.environ["API_KEY"]',
    'Set the token with ${GITHUB_TOKEN} in CI.',
    'private_key = ~/.ssh/id_ed25519',
    'Bearer tokens expire after 24 hours.',
    'Use sk-learn for the baseline model.',
    'The SSH key lives in the team vault.',
    'Deploys need an approval from the release owner.',
    'https://example.com/docs/auth is the guide.',
  ]
  it.each(prose)('lets ordinary text through: %s', (text) => {
    expect(findSecret(text)).toBeUndefined()
  })

  it('never returns the secret itself', () => {
    const match = findSecret('password: Hunter2!')
    expect(JSON.stringify(match)).not.toContain('Hunter2')
    expect(new Set(SECRET_RULES.map((r) => r.name)).size).toBe(SECRET_RULES.length)
  })

  it('walks metadata nested far deeper than the call stack, in document order', () => {
    // Before any depth check runs: a body nested 20,000 deep must not overflow the stack.
    let deep: unknown = { password: 'Hunter2!' }
    for (let i = 0; i < 20_000; i += 1) deep = i % 2 === 0 ? { a: deep } : [deep]
    const refused = (metadata: unknown): unknown => {
      try {
        refuseSourceSecrets('plain content', metadata)
        return undefined
      } catch (err) {
        return err
      }
    }
    expect(refused(deep)).toMatchObject({ code: 'secret_detected' })
    expect(
      refused({ note: ['fine', { password: 'Hunter2!' }], later: 'password: Winter2024' }),
    ).toMatchObject({ code: 'secret_detected', details: { field: 'metadata.note[1].password' } })
    let clean: unknown = 'nothing here'
    for (let i = 0; i < 20_000; i += 1) clean = { a: clean }
    expect(refused(clean)).toBeUndefined()
  })

  it('sliced for a request: the same verdict and error, pausing after the content and before each metadata string', async () => {
    const cases: [string, unknown][] = [
      [
        'plain content',
        { note: ['fine', { password: 'Hunter2!' }], later: 'password: Winter2024' },
      ],
      [
        'plain content',
        Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, `v${i}`])),
      ],
      ['Authorization: Bearer abcdef0123456789xyz', { note: 'fine' }],
      ['plain content', { nested: { deeper: [1, true, null, 'clean'] } }],
      ['plain content', {}],
    ]
    for (const [content, metadata] of cases) {
      const outcome = (run: () => unknown): unknown => {
        try {
          run()
          return 'clean'
        } catch (err) {
          return err
        }
      }
      let pauses = 0
      const pause = async () => {
        pauses += 1
      }
      const sliced = await refuseSourceSecretsSliced(content, metadata, pause).then(
        () => 'clean',
        (err: unknown) => err,
      )
      expect(sliced).toEqual(outcome(() => refuseSourceSecrets(content, metadata)))
      // Clean metadata: one pause after the content, then one per string it holds (500 in the
      // second case).
      if (metadata === cases[1]![1]) expect(pauses).toBe(501)
    }
  })
})
