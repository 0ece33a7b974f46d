/**
 * The console's masking (src/console/secret-mask.ts): every string of an answer passes the generic
 * secret rules before a view renders it; the rest of the answer is unchanged. Driven through a real
 * typed client whose fetch answers as a server holding secrets stored before the gate would.
 */
import { describe, expect, it } from 'vitest'

import { createPowerContextClient } from '../../src/client/index.js'
import { maskDeep, maskingClient, maskText } from '../../src/console/secret-mask.js'

// Built at run time so that no scanner mistakes this file for a leak.
const TOKEN = ['ghp_', 'q7Lm2Xv9Rt4Kp8Wn3Zb6Yc1Hd5Jf0Gs2Ae7U'].join('')
const PASSWORD = ['Staging', '2026!x'].join('')

describe('console masking', () => {
  it('masks each credential in place, naming its rule, and leaves other text alone', () => {
    expect(maskText(`deploy with ${TOKEN} today`)).toBe(
      'deploy with [secret withheld: github_token] today',
    )
    expect(maskText(`DB_PASSWORD=${PASSWORD}\nDB_HOST=db.internal`)).toBe(
      'DB_PASSWORD=[secret withheld: credential_assignment]\nDB_HOST=db.internal',
    )
    expect(maskText(`postgres://app:${PASSWORD}@db/x`)).toBe(
      'postgres://app:[secret withheld: url_credentials]@db/x',
    )
    const clean = 'Passwords rotate every 90 days; see process.env.DB_PASSWORD and ${TOKEN}.'
    expect(maskText(clean)).toBe(clean)
  })

  it('masks the text fields of a JSON value, reading a key with its value; ids and tokens pass', () => {
    const token = 'rp_7Hq2Lx9Vb4Nw8Kd3Zt6Yc1Rf5Jm0Gs2Ae7UpQ'
    expect(maskDeep({ preview_token: token, text: token })).toEqual({
      preview_token: token,
      text: '[secret withheld: prefixed_token]',
    })
    const masked = maskDeep({
      memory_ref: { artifact_id: 'mem_01M94W1N9NSVDRJFTQ6WC892PF', revision: 2 },
      text: `token ${TOKEN}`,
      metadata: { api_key: 'f3a9c2e17b4d8a6c5e0f1d2b3a4c5d6e', cwd: '/home/dev/app' },
      versions: [{ text: `the password is ${PASSWORD}` }],
    })
    expect(masked).toEqual({
      memory_ref: { artifact_id: 'mem_01M94W1N9NSVDRJFTQ6WC892PF', revision: 2 },
      text: 'token [secret withheld: github_token]',
      metadata: { api_key: '[secret withheld: credential_assignment]', cwd: '/home/dev/app' },
      versions: [{ text: 'the password is [secret withheld: credential_assignment]' }],
    })
  })

  it('the masking client hands views masked answers', async () => {
    const stored = { scope_id: 's', memories: [{ text: `CI token ${TOKEN}`, kind: 'fact' }] }
    const client = maskingClient(
      createPowerContextClient({
        baseUrl: 'http://127.0.0.1:9',
        fetch: async () =>
          new Response(JSON.stringify(stored), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          }),
      }),
    )
    const listed = (await client.list({ scope_id: 's' })) as unknown as typeof stored
    expect(listed.memories[0]!.text).toBe('CI token [secret withheld: github_token]')
    expect(JSON.stringify(listed)).not.toContain(TOKEN)
  })
})
