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

describe('structured candidates: refusals as reported', () => {
  const refusedOnly = (entry: number | null, reason: string) => ({
    candidates: [],
    refused: [{ sourceId: 'src-1', entry, reason }],
  })

  it('refuses content that is not one JSON object, whatever JSON it is', () => {
    for (const content of ['not json', 'null', '7', '"entries"', '[]', '[{"entries":[]}]']) {
      expect(structuredCandidates(source(content))).toEqual(
        refusedOnly(null, 'content is not a JSON object'),
      )
    }
  })

  it('takes 1–100 entries', () => {
    const entries = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ kind: 'fact', text: `n${i}` }))
    expect(
      structuredCandidates(source({ entries: entries(MAX_STRUCTURED_ENTRIES) })).candidates,
    ).toHaveLength(MAX_STRUCTURED_ENTRIES)
    for (const bad of [entries(0), entries(MAX_STRUCTURED_ENTRIES + 1), { kind: 'fact' }]) {
      expect(structuredCandidates(source({ entries: bad }))).toEqual(
        refusedOnly(null, 'entries must be an array of 1–100 entries'),
      )
    }
  })

  it('refuses each malformed entry once, with its index and reason', () => {
    const r = structuredCandidates(
      source({
        entries: [
          'not an object',
          null,
          ['kind', 'text'],
          { kind: 'fact', text: 'ok', colour: 'red' },
          { kind: 'fact', text: 'kept' },
        ],
      }),
    )
    expect(r.candidates.map((c) => c.text)).toEqual(['kept'])
    expect(r.refused).toEqual([
      { sourceId: 'src-1', entry: 0, reason: 'entry must be an object' },
      { sourceId: 'src-1', entry: 1, reason: 'entry must be an object' },
      { sourceId: 'src-1', entry: 2, reason: 'entry must be an object' },
      { sourceId: 'src-1', entry: 3, reason: 'unknown field colour' },
    ])
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

  const outcome = (body: Record<string, unknown>) =>
    taskOutcomeCandidates(source({ task: 't', outcome: 'o', summary: 's', ...body }))
  const refusedOnly = (reason: string) => ({
    candidates: [],
    refused: [{ sourceId: 'src-1', entry: null, reason }],
  })

  it('writes every given line, trimmed, and only those', () => {
    const r = taskOutcomeCandidates(
      source({
        task: '  Fix login  ',
        outcome: ' failed ',
        summary: ' Token expired. ',
        changed_paths: ['src/a.ts', 'test/a.test.ts'],
        git_head: ' abc123 ',
      }),
    )
    expect(r).toEqual({
      candidates: [
        {
          kind: 'working_note',
          text: 'Task: Fix login\nOutcome: failed\nSummary: Token expired.\nChanged paths: src/a.ts, test/a.test.ts\nGit head: abc123',
          observedAt: null,
          sources: ['src-1'],
          origin: 'task_outcome',
          reason: null,
        },
      ],
      refused: [],
    })
    for (const empty of [{ changed_paths: [] }, { git_head: ' ' }, { verification: '' }]) {
      expect(outcome(empty).candidates[0]?.text).toBe('Task: t\nOutcome: o\nSummary: s')
    }
  })

  it('refuses malformed outcomes with the reason reported', () => {
    expect(taskOutcomeCandidates(source('{"task":'))).toEqual(
      refusedOnly('content is not a JSON object'),
    )
    expect(taskOutcomeCandidates(source('["task"]'))).toEqual(
      refusedOnly('content is not a JSON object'),
    )
    for (const body of [{ task: ' ' }, { task: 5 }, { outcome: null }]) {
      expect(outcome(body)).toEqual(refusedOnly('task and outcome must be non-blank strings'))
    }
    for (const changed_paths of ['a', ['a', 3], { a: 1 }]) {
      expect(outcome({ changed_paths })).toEqual(
        refusedOnly('changed_paths must be an array of strings'),
      )
    }
    expect(outcome({ mood: 'x' })).toEqual(refusedOnly('unknown field mood'))
    expect(outcome({ summary: 'token ghp_0123456789abcdefghijABCDEFGHIJ0123' })).toEqual(
      refusedOnly('looks like a secret (github_token)'),
    )
  })

  it('keeps a note of exactly the limit whole and cuts a longer one at the limit', () => {
    const head = 'Task: t\nOutcome: o\nSummary: '
    const fits = 'a'.repeat(MAX_TEXT_BYTES - head.length)
    expect(outcome({ summary: fits }).candidates[0]?.text).toBe(head + fits)
    const cutText = outcome({ summary: fits + 'b' }).candidates[0]?.text
    expect(cutText).toBe(head + 'a'.repeat(MAX_TEXT_BYTES - 3 - head.length) + '…')
    expect(utf8Length(cutText!)).toBe(MAX_TEXT_BYTES)
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

  it('orders by observed_at, then by source position, then by capture time', () => {
    const at = (
      observedAt: string | null,
      position: number | null,
      capturedAt: string | null = null,
    ) => ({
      observedAt,
      position,
      capturedAt,
    })
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
    expect(compareRecency(at(null, 5), at(null, null))).toBe('unknown')
    // Both times are needed to order by time; otherwise positions decide.
    expect(compareRecency(at('2024-01-01T00:00:00.000Z', 2), at(null, 5))).toBe('older')
    expect(compareRecency(at('2024-01-01T00:00:00.000Z', 9), at(null, 5))).toBe('newer')
    expect(
      compareRecency(at('2024-01-01T00:00:00.000Z', 9), at('2024-01-01T00:00:00.000Z', 1)),
    ).toBe('same')
    // Neither a time nor positions on both sides: capture order decides.
    const early = '2025-03-01T10:00:00.000Z'
    const late = '2025-03-01T10:00:01.000Z'
    expect(compareRecency(at(null, 3, early), at(null, null, late))).toBe('older')
    expect(compareRecency(at(null, 3, late), at(null, null, early))).toBe('newer')
    expect(compareRecency(at('2024-01-01T00:00:00.000Z', 3, early), at(null, null, late))).toBe(
      'older',
    )
    expect(compareRecency(at(null, null, null), at(null, null, late))).toBe('unknown')
  })

  it('reads media types without parameters and case', () => {
    expect(mediaTypeEssence('Application/VND.PowerContext.Memory+JSON;charset=utf-8')).toBe(
      'application/vnd.powercontext.memory+json',
    )
  })
})
