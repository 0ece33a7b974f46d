/**
 * Paraphrase recall of extracted memories: do memories written from what a user typed come back
 * when a later session asks in other words? For each wording, a fresh SQLite runtime holds 300
 * distractor memories (LoCoMo dialogue turns, `bench-data.ts`), the 20 prompts of
 * `paraphrase-set.ts` are captured as user-prompt sources and flushed through the real flush path
 * with a scripted OpenAI-compatible model on loopback (test/support/chat-server.ts), which writes
 * what the prompt asks for:
 * - `topic`: the memory worded as the proposing prompt asks (topic in plain words first); the
 *   scripted model checks the prompt asks for it and fails the bench otherwise;
 * - `bare`: the statement as the user made it (what a model writes without that rule).
 * Then each of the 40 paraphrased questions is searched (the scope's default search: full text
 * here, no embedding model) and recall@k counts the questions whose memory is among the first k.
 * The figures measure the wording, not a model's compliance with it. Also prints the flush's
 * calls and tokens (the scripted server counts four characters a token).
 *
 * Usage: `npm run bench:paraphrase`. Prints a table, then one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'

import { MemoryRuntime } from '../src/runtime/memory-runtime.js'
import { ChatServer, decideEach, proposal } from '../test/support/chat-server.js'
import { memoryTexts } from './bench-data.js'
import { f2 } from './bench-stats.js'
import { PARAPHRASE_SET } from './paraphrase-set.js'

const DISTRACTORS = 300
const KS = [1, 3, 5] as const
/** Words of the proposing prompt's wording rule; the scripted model checks they were sent. */
const RULE_MARK = 'Open with the topic in plain, common words'

type Wording = 'topic' | 'bare'

async function run(wording: Wording) {
  const chat = new ChatServer()
  const url = await chat.listen()
  const dir = mkdtempSync(join(os.tmpdir(), 'pc-bench-paraphrase-'))
  const rt = await MemoryRuntime.open({
    dataDir: dir,
    extraction: { generation: { url, model: 'scripted', maxRequests: 1 } },
  })
  try {
    const scopeId = 'bench:paraphrase'
    const distractors = memoryTexts(DISTRACTORS, 1)
    for (let i = 0; i < distractors.length; i += 100)
      await rt.remember({
        scopeId,
        entries: distractors.slice(i, i + 100).map((text) => ({ kind: 'fact', text })),
      })
    for (const [i, c] of PARAPHRASE_SET.entries())
      await rt.captureSource({
        scopeId,
        sourceId: `prompt-${i}`,
        content: c.prompt,
        metadata: { event: 'user_prompt_submit' },
      })
    chat.responder = (req) => {
      if (req.schemaName !== 'memory_candidates')
        return decideEach((c) => ({ action: 'create', text: c.text }))(req)
      if (!req.system.includes(RULE_MARK)) throw new Error('the proposing prompt lost its rule')
      const sources = req.user['sources'] as { source_id: string; content: string }[]
      return proposal(
        ...sources.map((s) => {
          const c = PARAPHRASE_SET.find((x) => x.prompt === s.content)!
          return { kind: 'preference', text: c[wording], evidence: [s.source_id] }
        }),
      )
    }
    const flushed = await rt.flush({ scopeId })
    const found = Object.fromEntries(KS.map((k) => [k, 0])) as Record<number, number>
    let questions = 0
    const missed: string[] = []
    for (const c of PARAPHRASE_SET)
      for (const query of c.questions) {
        questions += 1
        const { hits } = await rt.search({ scopeId, query, limit: Math.max(...KS) })
        const rank = hits.findIndex((h) => h.text === c[wording])
        for (const k of KS) if (rank !== -1 && rank < k) found[k]! += 1
        if (rank === -1) missed.push(query)
      }
    return {
      wording,
      questions,
      recall: Object.fromEntries(KS.map((k) => [`@${k}`, found[k]! / questions])),
      missed,
      usage: flushed.modelUsage,
      decideCalls: chat.calls('memory_decision').length,
      // Per deciding call: candidates, related memories shown, characters of the user message.
      decideSizes: chat
        .calls('memory_decision')
        .map((r) => [
          (r.user['candidates'] as unknown[]).length,
          (r.user['related_memories'] as unknown[]).length,
          JSON.stringify(r.user).length,
        ]),
    }
  } finally {
    await rt.close()
    await chat.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const results = [await run('topic'), await run('bare')]
console.log(
  `paraphrase recall: ${PARAPHRASE_SET.length} prompts, ${results[0]!.questions} questions, ` +
    `${DISTRACTORS} distractor memories, full-text search`,
)
console.log(
  '| wording | recall@1 | recall@3 | recall@5 | calls (deciding) | input tokens | output tokens |',
)
console.log(
  '| ------- | -------: | -------: | -------: | ---------------: | -----------: | ------------: |',
)
for (const r of results)
  console.log(
    `| ${r.wording} | ${KS.map((k) => f2(r.recall[`@${k}`]!)).join(' | ')} | ` +
      `${r.usage?.calls} (${r.decideCalls}) | ${r.usage?.inputTokens} | ${r.usage?.outputTokens} |`,
  )
console.log(JSON.stringify({ bench: 'paraphrase', results }))
