/**
 * Long CPU work in slices: a flush of a large window plans, checks and writes
 * up to a thousand candidates of 8 KB each, seconds of synchronous work that would otherwise hold
 * the event loop (liveness, other requests, timers) for all of it. Loops over such work await a
 * {@link Pause} between items; it yields to the event loop (`setImmediate`) once a slice's budget
 * of synchronous work is spent, and is a resolved promise otherwise. Yielding changes no result:
 * every unit of work still runs in its own transaction (SQLite's are serialised by the
 * connection's mutex, so nothing else touches the database during a yield inside one).
 */
import { performance } from 'node:perf_hooks'
import { setImmediate } from 'node:timers/promises'

/** Awaited between items of a long loop: yields when the slice's budget is spent. */
export type Pause = () => Promise<void>

/** Synchronous work per slice before a yield, ms (well under the ≈ 50 ms target). */
export const SLICE_BUDGET_MS = 10

/** A pause for one long piece of work; its first slice starts now. */
export function timeSlicer(budgetMs = SLICE_BUDGET_MS): Pause {
  let since = performance.now()
  return async () => {
    if (performance.now() - since < budgetMs) return
    await setImmediate()
    since = performance.now()
  }
}
