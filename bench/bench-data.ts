/**
 * Deterministic benchmark data shared by the benches: realistic short memory texts and queries
 * derived from the LoCoMo development split (dialogue turns and their questions).
 *
 * Texts follow the LoCoMo retrieval protocol (`"[<date time>] <speaker>: <turn text>"`). The first
 * pass over the 2,760 turns is the protocol text itself; later passes rename the two speakers
 * (everywhere in the turn), shift the session date and step the time by one minute per turn, so
 * any number of texts are distinct while keeping LoCoMo's length and word distribution.
 */
import { readFileSync } from 'node:fs'

/** Where the LoCoMo development split lives; `LOCOMO_DEV` overrides it. */
export const LOCOMO_DEV_PATH =
  process.env['LOCOMO_DEV'] ?? '/work/shared/data/locomo/locomo-dev.json'

interface LocomoTurn {
  readonly speaker: string
  readonly dia_id: string
  readonly text: string
}

interface LocomoQa {
  readonly question: string
  readonly evidence?: readonly string[]
  readonly category: number
}

interface LocomoConversation {
  readonly sample_id: string
  readonly conversation: Readonly<Record<string, unknown>> & {
    readonly speaker_a: string
    readonly speaker_b: string
  }
  readonly qa: readonly LocomoQa[]
}

/** One dialogue turn with the context the texts are built from. */
export interface BenchTurn {
  readonly conversation: number
  readonly speakerA: string
  readonly speakerB: string
  readonly speaker: string
  readonly dateTime: string
  /** Position of the turn inside its session (0-based). */
  readonly position: number
  readonly text: string
}

/** A scored LoCoMo question (categories 1–4). */
export interface BenchQuestion {
  readonly sampleId: string
  readonly question: string
  readonly category: number
}

let cache: readonly LocomoConversation[] | undefined

function loadLocomo(path = LOCOMO_DEV_PATH): readonly LocomoConversation[] {
  if (cache !== undefined) return cache
  let raw: string
  try {
    raw = readFileSync(path, 'utf8')
  } catch (err) {
    throw new Error(`cannot read the LoCoMo dev split at ${path} (set LOCOMO_DEV)`, { cause: err })
  }
  cache = JSON.parse(raw) as LocomoConversation[]
  return cache
}

/** Every dialogue turn of the dev split, in file and session order. */
export function locomoTurns(): BenchTurn[] {
  const out: BenchTurn[] = []
  loadLocomo().forEach((conv, c) => {
    const sessions = Object.keys(conv.conversation)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b)
    for (const s of sessions) {
      const turns = conv.conversation[`session_${s}`] as readonly LocomoTurn[]
      const dateTime = conv.conversation[`session_${s}_date_time`] as string
      turns.forEach((t, position) => {
        out.push({
          conversation: c,
          speakerA: conv.conversation.speaker_a,
          speakerB: conv.conversation.speaker_b,
          speaker: t.speaker,
          dateTime,
          position,
          text: t.text,
        })
      })
    }
  })
  return out
}

/** Mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Fisher–Yates shuffle of a copy, driven by `rng`. */
export function shuffled<T>(items: readonly T[], rng: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1))
    const tmp = out[i]!
    out[i] = out[j]!
    out[j] = tmp
  }
  return out
}

// prettier-ignore
const NAMES = [
  'Alice', 'Amir', 'Ana', 'Ben', 'Carlos', 'Chloe', 'Daniel', 'Dev', 'Elena', 'Emma', 'Farah',
  'Felix', 'Grace', 'Hana', 'Ivan', 'Jade', 'Kai', 'Laura', 'Leo', 'Lucia', 'Maya', 'Mei', 'Noah',
  'Olivia', 'Omar', 'Priya', 'Rosa', 'Sam', 'Sofia', 'Tom', 'Yuki', 'Zoe',
]

// prettier-ignore
const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September',
  'October', 'November', 'December',
]

const DATE_TIME = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) (\w+), (\d{4})$/

/** Parses LoCoMo's `"1:56 pm on 8 May, 2023"` into a UTC timestamp (ms). */
function parseDateTime(s: string): number {
  const m = DATE_TIME.exec(s)
  const month = m === null ? -1 : MONTHS.indexOf(m[5]!)
  if (m === null || month < 0) throw new Error(`unexpected LoCoMo date_time: ${s}`)
  const hour = (Number(m[1]) % 12) + (m[3] === 'pm' ? 12 : 0)
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))
}

/** Formats a UTC timestamp the way LoCoMo writes session dates. */
function formatDateTime(ms: number): string {
  const d = new Date(ms)
  const h = d.getUTCHours()
  const minutes = String(d.getUTCMinutes()).padStart(2, '0')
  return `${h % 12 === 0 ? 12 : h % 12}:${minutes} ${h < 12 ? 'am' : 'pm'} on ${d.getUTCDate()} ${
    MONTHS[d.getUTCMonth()]
  }, ${d.getUTCFullYear()}`
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/**
 * `count` distinct, realistic memory texts (deterministic for a seed). Pass 0 is the LoCoMo
 * protocol text of each turn; pass k > 0 renames the conversation's speakers to a seeded pair
 * of other names, shifts the session date by a seeded number of days and adds one minute per
 * turn position. A rare collision is resolved by moving the time one more minute.
 */
export function memoryTexts(count: number, seed = 1): string[] {
  const turns = locomoTurns()
  const rng = mulberry32(seed)
  const out: string[] = []
  const seen = new Set<string>()
  let renames: { from: RegExp; to: string }[][] = []
  let shiftDays: number[] = []
  const conversations = Math.max(...turns.map((t) => t.conversation)) + 1
  for (let n = 0; out.length < count; n++) {
    const i = n % turns.length
    const pass = Math.floor(n / turns.length)
    const turn = turns[i]!
    if (i === 0) {
      renames = []
      shiftDays = []
      for (let c = 0; c < conversations; c++) {
        const first = Math.floor(rng() * NAMES.length)
        const second = (first + 1 + Math.floor(rng() * (NAMES.length - 1))) % NAMES.length
        const a = turns.find((t) => t.conversation === c)!
        renames.push([
          { from: new RegExp(`\\b${escapeRegExp(a.speakerA)}\\b`, 'g'), to: NAMES[first]! },
          { from: new RegExp(`\\b${escapeRegExp(a.speakerB)}\\b`, 'g'), to: NAMES[second]! },
        ])
        shiftDays.push(Math.floor(rng() * 3650))
      }
    }
    let text: string
    if (pass === 0) {
      text = `[${turn.dateTime}] ${turn.speaker}: ${turn.text}`
    } else {
      const rename = (s: string): string =>
        renames[turn.conversation]!.reduce((acc, r) => acc.replace(r.from, r.to), s)
      let at = parseDateTime(turn.dateTime) + shiftDays[turn.conversation]! * DAY
      at += turn.position * MINUTE
      const body = `${rename(turn.speaker)}: ${rename(turn.text)}`
      text = `[${formatDateTime(at)}] ${body}`
      while (seen.has(text)) {
        at += MINUTE
        text = `[${formatDateTime(at)}] ${body}`
      }
    }
    if (seen.has(text)) continue
    seen.add(text)
    out.push(text)
  }
  return out
}

/**
 * `count` scored LoCoMo questions (categories 1–4) in a seeded order. When more are asked for
 * than exist, the shuffled list repeats.
 */
export function locomoQuestions(count: number, seed = 1): BenchQuestion[] {
  const all: BenchQuestion[] = []
  for (const conv of loadLocomo()) {
    for (const qa of conv.qa) {
      if (qa.category >= 1 && qa.category <= 4 && typeof qa.question === 'string') {
        all.push({ sampleId: conv.sample_id, question: qa.question, category: qa.category })
      }
    }
  }
  const order = shuffled(all, mulberry32(seed))
  return Array.from({ length: count }, (_, i) => order[i % order.length]!)
}
