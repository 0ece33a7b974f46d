/* The operation-files listing (scripts/operation-files.ts, `npm run ops:files`). */
import { describe, expect, it } from 'vitest'

import { namesOf, withoutComments } from '../../scripts/operation-files.js'

describe('npm run ops:files', () => {
  it('knows the names an operation goes by in code, and only those', () => {
    const text =
      'forget forgetInTx ForgetCommand ForgetResult ForgetRequest ForgetResponse forget_memory ' +
      "'/v1/memory/forget' forgetGraph forgotten ForgetPanel"
    expect(text.match(namesOf('forget'))).toEqual([
      'forget',
      'forgetInTx',
      'ForgetCommand',
      'ForgetResult',
      'ForgetRequest',
      'ForgetResponse',
      'forget_memory',
      '/v1/memory/forget',
    ])
    expect(() => namesOf('nope')).toThrow(/no contract operation nope/)
  })

  it('leaves comments out, not URLs in strings', () => {
    const code = withoutComments(
      'a.ts',
      "/** forget */\nconst a = 1 // forget\nconst u = 'http://x/forget'\n",
    )
    expect(code).not.toMatch(/\*\*|\/\/ forget/)
    expect(code).toContain("'http://x/forget'")
    expect(withoutComments('a.py', '# forget\nx = 1\n')).toBe('\nx = 1\n')
  })
})
