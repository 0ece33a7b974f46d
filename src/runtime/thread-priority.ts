/**
 * The event-loop thread first. A server's other threads — V8's garbage-collection and compiler
 * helpers (four by default), libuv's pool — are background work, but on a small machine they
 * take cores from the one thread that answers requests: during a major garbage collection on 2
 * cores the event loop waited 15-36 ms for a core while the helpers marked. On Linux each
 * thread has its own nice value; raising one's own (lowering priority) needs no privilege.
 */
import { readdirSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** How many nice steps below the event-loop thread the other threads run. */
export const BACKGROUND_NICE_STEPS = 10

/** The highest nice value (lowest priority) Linux has. */
const LOWEST_PRIORITY = 19

/**
 * Lowers the priority of every thread of this process but the main one (the event loop) to
 * `BACKGROUND_NICE_STEPS` below it; threads created later inherit their creator's. Returns how
 * many threads it lowered: 0 where threads are not listed in `/proc` (not Linux) or none could be.
 */
export function lowerBackgroundThreads(): number {
  let threads: number[]
  try {
    threads = readdirSync('/proc/self/task').map(Number)
  } catch {
    return 0
  }
  const target = Math.min(LOWEST_PRIORITY, getPriority() + BACKGROUND_NICE_STEPS)
  let lowered = 0
  for (const tid of threads) {
    if (tid === process.pid) continue
    try {
      if (getPriority(tid) >= target) continue
      setPriority(tid, target)
      lowered += 1
    } catch {
      // The thread ended meanwhile: nothing to lower.
    }
  }
  return lowered
}
