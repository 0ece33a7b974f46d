/* The kept tokens of full-text candidates (engine/search/candidate-tokens.ts): a text's tokens
 * are its space-separated Analyzer v1 tokens, split once and then shared, read-only, bounded. */
import { describe, expect, it } from 'vitest'

import { candidateTokens } from '../../src/storage/engine/search/candidate-tokens.js'

describe('candidate tokens', () => {
  it('are the space-separated tokens, split once per text and shared after that', () => {
    const text = ['deploy', 'cache', 's_1f', 'deploy'].join(' ')
    const first = candidateTokens(text)
    expect(first).toEqual(['deploy', 'cache', 's_1f', 'deploy'])
    // Another string with the same characters (as a new database read gives) finds the same array.
    expect(candidateTokens([...text].join(''))).toBe(first)
    expect(candidateTokens('deploy cache')).toEqual(['deploy', 'cache'])
    expect(candidateTokens('deploy cache')).not.toBe(first)
  })

  it('cannot be changed by a caller', () => {
    const tokens = candidateTokens('release schema review') as string[]
    expect(Object.isFrozen(tokens)).toBe(true)
    expect(() => tokens.push('x')).toThrow(TypeError)
    expect(candidateTokens('release schema review')).toEqual(['release', 'schema', 'review'])
  })

  it('keeps a bounded number of texts', () => {
    const kept = candidateTokens('bounded probe text')
    for (let i = 0; i < 20_000; i++) candidateTokens(`filler ${i}`)
    // The cache was emptied once full: the probe is split anew (equal, not the same array).
    const again = candidateTokens('bounded probe text')
    expect(again).toEqual(kept)
    expect(again).not.toBe(kept)
  })
})
