/**
 * Source kinds (core/source-kinds.ts): which kind a captured source is, from its media type
 * (parameters and case ignored) and, for free text, the prompt event of its metadata; and how
 * flush handles each kind with and without a generation model.
 */
import { describe, expect, it } from 'vitest'

import { MEMORY_MEDIA_TYPE, TASK_OUTCOME_MEDIA_TYPE } from '../../src/core/extraction-rules.js'
import { GIT_CHANGE_MEDIA_TYPE } from '../../src/core/git-change.js'
import {
  PROMPT_EVENT,
  SOURCE_KINDS,
  sourceHandling,
  sourceKind,
} from '../../src/core/source-kinds.js'

const kindOf = (mediaType: string, metadata: Record<string, unknown> | null = null) =>
  sourceKind({ mediaType, metadata })

describe('sourceKind', () => {
  it('names the structured media types, ignoring parameters, case and spaces', () => {
    expect(kindOf(MEMORY_MEDIA_TYPE)).toBe('memory')
    expect(kindOf(`${MEMORY_MEDIA_TYPE.toUpperCase()} ; charset=utf-8`)).toBe('memory')
    expect(kindOf(TASK_OUTCOME_MEDIA_TYPE)).toBe('task_outcome')
    expect(kindOf(`${TASK_OUTCOME_MEDIA_TYPE}; v=1`)).toBe('task_outcome')
    expect(kindOf(GIT_CHANGE_MEDIA_TYPE)).toBe('git_change')
    expect(kindOf(` ${GIT_CHANGE_MEDIA_TYPE};charset=utf-8`)).toBe('git_change')
  })

  it('reads the media type before the metadata', () => {
    const prompt = { event: PROMPT_EVENT }
    expect(kindOf(MEMORY_MEDIA_TYPE, prompt)).toBe('memory')
    expect(kindOf(TASK_OUTCOME_MEDIA_TYPE, prompt)).toBe('task_outcome')
    expect(kindOf(GIT_CHANGE_MEDIA_TYPE, prompt)).toBe('git_change')
  })

  it('makes free text a prompt only with the prompt event, else content', () => {
    expect(PROMPT_EVENT).toBe('user_prompt_submit')
    expect(kindOf('text/plain', { event: 'user_prompt_submit' })).toBe('prompt')
    expect(kindOf('text/markdown', { event: 'user_prompt_submit', origin: 'hook' })).toBe('prompt')
    expect(kindOf('text/plain', { event: 'stop' })).toBe('content')
    expect(kindOf('text/plain', { kind: 'user_prompt_submit' })).toBe('content')
    expect(kindOf('text/plain', {})).toBe('content')
    expect(kindOf('text/plain', null)).toBe('content')
    expect(kindOf('application/json')).toBe('content')
    // A media type that only starts like a structured one is free text.
    expect(kindOf(`${MEMORY_MEDIA_TYPE}x`)).toBe('content')
  })
})

describe('sourceHandling', () => {
  it.each([
    [true, { task_outcome: 'extracted', free: 'extracted' }],
    [false, { task_outcome: 'working_note', free: 'evidence_only' }],
  ] as const)('with a model: %s', (withModel, expected) => {
    const h = sourceHandling(withModel)
    expect(h).toEqual({
      memory: 'structured',
      task_outcome: expected.task_outcome,
      git_change: expected.free,
      prompt: expected.free,
      content: expected.free,
    })
    expect(Object.isFrozen(h)).toBe(true)
  })

  it('handles every kind, in the order capabilities list them', () => {
    expect(SOURCE_KINDS).toEqual(['memory', 'task_outcome', 'git_change', 'prompt', 'content'])
    for (const withModel of [true, false]) {
      expect(Object.keys(sourceHandling(withModel))).toEqual([...SOURCE_KINDS])
    }
  })
})
