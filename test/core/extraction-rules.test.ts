import { describe, expect, it } from 'vitest'

import {
  checkCandidate,
  compareRecency,
  MAX_STRUCTURED_ENTRIES,
  mediaTypeEssence,
  structuredCandidates,
  taskOutcomeCandidates,
} from '../../src/core/extraction-rules.js'
import { MAX_TEXT_BYTES, utf8Length } from '../../src/core/text-rules.js'

const source = (content: unknown, occurredAt: string | null = null) => ({
  sourceId: 'src-1',
  content: typeof content === 'string' ? content : JSON.stringify(content),
  occurredAt,
})

describe('structured candidates', () => {
  it('turns entries into normalised candidates citing the source', () => {
    const r = structuredCandidates(
      source(
        {
          entries: [
            { kind: ' fact ', text: '  Cafe\u0301 opens at 8.  ' },
            {
              kind: 'decision',
              text: 'Ship on Tuesdays.',
              observed_at: '2025-01-01T01:00:00+01:00',
              reason: 'retro',
            },
          ],
        },
        '2025-03-01T00:00:00Z',
      ),
    )
    expect(r.refused).toEqual([])
    expect(r.candidates).toEqual([
      {
        kind: 'fact',
        text: 'Café opens at 8.',
        observedAt: '2025-03-01T00:00:00.000Z',
        sources: ['src-1'],
        origin: 'structured',
        reason: null,
      },
      {
        kind: 'decision',
        text: 'Ship on Tuesdays.',
        observedAt: '2025-01-01T00:00:00.000Z',
        sources: ['src-1'],
        origin: 'structured',
        reason: 'retro',
      },
    ])
  })

  it('refuses malformed sources and entries, keeping the valid ones', () => {
    expect(structuredCandidates(source('not json')).refused[0]?.reason).toMatch(/JSON object/)
    expect(structuredCandidates(source({ entries: [] })).refused[0]?.reason).toMatch(/1–100/)
    expect(
      structuredCandidates(source({ entries: [{ kind: 'fact', text: 'x' }], extra: 1 })).refused[0]
        ?.reason,
    ).toMatch(/unknown field extra/)
    const many = {
      entries: Array.from({ length: MAX_STRUCTURED_ENTRIES + 1 }, () => ({
        kind: 'fact',
        text: 'x',
      })),
    }
    expect(structuredCandidates(source(many)).candidates).toEqual([])
    const mixed = structuredCandidates(
      source({
        entries: [
          { kind: 'fact', text: '   ' },
          'not an object',
          { kind: 'fact', text: 'ok', colour: 'red' },
          { kind: 'fact', text: 'token ghp_0123456789abcdefghijABCDEFGHIJ0123' },
          { kind: 'fact', text: 'kept', observed_at: 'yesterday' },
          { kind: 'fact', text: 'kept for real' },
        ],
      }),
    )
    expect(mixed.candidates.map((c) => c.text)).toEqual(['kept for real'])
    expect(mixed.refused.map((r) => r.entry)).toEqual([0, 1, 2, 3, 4])
    expect(mixed.refused[3]?.reason).toBe('looks like a secret (github_token)')
  })
})

describe('task outcome', () => {
  it('yields one mechanical working note, or nothing without a summary', () => {
    const r = taskOutcomeCandidates(
      source(
        {
          task: 'Upgrade deps',
          outcome: 'succeeded',
          summary: 'All green.',
          verification: 'npm test',
        },
        '2025-02-02T00:00:00Z',
      ),
    )
    expect(r.candidates).toEqual([
      expect.objectContaining({
        kind: 'working_note',
        origin: 'task_outcome',
        text: 'Task: Upgrade deps\nOutcome: succeeded\nSummary: All green.\nVerification: npm test',
        observedAt: '2025-02-02T00:00:00.000Z',
      }),
    ])
    expect(taskOutcomeCandidates(source({ task: 't', outcome: 'o', summary: '  ' }))).toEqual({
      candidates: [],
      refused: [],
    })
    expect(taskOutcomeCandidates(source({ task: 't' })).refused[0]?.reason).toMatch(
      /task and outcome/,
    )
    expect(
      taskOutcomeCandidates(source({ task: 't', outcome: 'o', summary: 's', changed_paths: 'a' }))
        .refused,
    ).toHaveLength(1)
    expect(
      taskOutcomeCandidates(source({ task: 't', outcome: 'o', summary: 's', mood: 'x' })).refused[0]
        ?.reason,
    ).toMatch(/unknown field/)
  })

  it('cuts a long note to the text limit', () => {
    const r = taskOutcomeCandidates(source({ task: 't', outcome: 'o', summary: 'é'.repeat(9000) }))
    const text = r.candidates[0]!.text
    expect(utf8Length(text)).toBeLessThanOrEqual(MAX_TEXT_BYTES)
    expect(text.endsWith('…')).toBe(true)
  })
})

describe('candidate checks and recency', () => {
  it('applies the text rules of explicit writes', () => {
    const base = {
      kind: 'fact',
      text: 'ok',
      observedAt: null,
      sources: ['a', 'a'],
      origin: 'model' as const,
      reason: null,
    }
    expect(checkCandidate(base)).toEqual({ candidate: { ...base, sources: ['a'] } })
    expect(checkCandidate({ ...base, text: 'x'.repeat(MAX_TEXT_BYTES + 1) })).toHaveProperty(
      'refused',
    )
    expect(checkCandidate({ ...base, kind: '' })).toHaveProperty('refused')
  })

  it('orders by observed_at, then by source position', () => {
    const at = (observedAt: string | null, position: number | null) => ({ observedAt, position })
    expect(
      compareRecency(at('2024-01-01T00:00:00.000Z', 9), at('2025-01-01T00:00:00.000Z', 1)),
    ).toBe('older')
    expect(
      compareRecency(at('2025-01-01T00:00:00.000Z', 1), at('2024-01-01T00:00:00.000Z', 9)),
    ).toBe('newer')
    expect(compareRecency(at(null, 2), at('2024-01-01T00:00:00.000Z', 5))).toBe('older')
    expect(compareRecency(at(null, 7), at(null, 5))).toBe('newer')
    expect(compareRecency(at(null, 5), at(null, 5))).toBe('same')
    expect(compareRecency(at(null, null), at(null, 5))).toBe('unknown')
  })

  it('reads media types without parameters and case', () => {
    expect(mediaTypeEssence('Application/VND.PowerContext.Memory+JSON;charset=utf-8')).toBe(
      'application/vnd.powercontext.memory+json',
    )
  })
})
