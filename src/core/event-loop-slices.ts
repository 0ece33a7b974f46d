/**
 * Long CPU work in slices: a flush of a large window plans, checks and writes
 * up to a thousand candidates of 8 KB each, seconds of synchronous work that would otherwise hold
 * the event loop (liveness, other requests, timers) for all of it. Loops over such work await a
 * {@link Pause} between items; it yields to the event loop (`setImmediate`) once a slice's budget
 * of synchronous work is spent in the current stretch, and is a resolved promise otherwise. Yielding changes no result:
 * every unit of work still runs in its own transaction (SQLite's are serialised by the
 * connection's mutex, so nothing else touches the database during a yield inside one).
 */
import { performance } from 'node:perf_hooks'
import { setImmediate } from 'node:timers'

/** Awaited between items of a long loop: yields when the slice's budget is spent. */
export type Pause = () => Promise<void>

/**
 * Synchronous work per slice before a yield, ms: a slice plus the one piece that cannot be split
 * (one SQL statement, one garbage collection) stays well under the ≈ 50 ms target.
 */
export const SLICE_BUDGET_MS = 5

/**
 * Where the thread's current stretch of synchronous work began, as far as pauses can tell: when
 * one last resumed after a yield, or when a pause first found that the loop had polled for I/O
 * since (its idle time moved: a new turn). Every slicer measures its budget from it, so work that
 * starts mid-stretch (the next search of a `prepare` after the previous one's tail, a loop after
 * a long statement) does not get a budget of its own on top of what already ran, while a pause
 * in a new turn (a request's first) does not yield for the stretches of earlier turns.
 */
let stretchStart = performance.now()
let idleSeen = performance.eventLoopUtilization().idle

/**
 * Pauses waiting for the next turn (one immediate for all of them). Pauses resumed by the same
 * turn (four readers that yielded together) run one after another in it: the turn's stretch
 * starts once, and a pause that finds the budget already spent by those resumed before it waits
 * for the next turn, at the front of it (`deferred`), rather than adding its own work to the same
 * stretch or waiting behind a request that keeps going first.
 */
let deferred: (() => void)[] = []
let waiting: (() => void)[] = []
let turnScheduled = false

function awaitNextTurn(front: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (front) deferred.push(resolve)
    else waiting.push(resolve)
    if (turnScheduled) return
    turnScheduled = true
    setImmediate(() => {
      turnScheduled = false
      const resumed = [...deferred, ...waiting]
      deferred = []
      waiting = []
      stretchStart = performance.now()
      idleSeen = performance.eventLoopUtilization().idle
      for (const resume of resumed) resume()
    })
  })
}

/** A pause for one long piece of work, sharing the thread's stretch (see {@link stretchStart}). */
export function timeSlicer(budgetMs = SLICE_BUDGET_MS): Pause {
  return async () => {
    const now = performance.now()
    if (now - stretchStart < budgetMs) return
    const idle = performance.eventLoopUtilization().idle
    if (idle !== idleSeen) {
      idleSeen = idle
      stretchStart = now
      if (budgetMs > 0) return
    }
    await awaitNextTurn(false)
    while (budgetMs > 0 && performance.now() - stretchStart >= budgetMs) await awaitNextTurn(true)
  }
}
