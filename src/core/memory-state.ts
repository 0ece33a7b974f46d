import { PowerContextError } from './errors.js'
import type { ChangeOp, MemoryState } from './memory-model.js'

/**
 * The memory state machine (docs/memory-model.md, "States"), in one table: for each change op that moves a memory
 * between states, the states it may start from and the state it leaves. `update` writes a version
 * and keeps the state, so it is not here. Every writer takes its next state from this table
 * ({@link stateAfter}); no other file compares state literals.
 */
export const STATE_TRANSITIONS = {
  /** A new memory (remember, a merge result). */
  add: { from: [], to: 'active' },
  forget: { from: ['active'], to: 'forgotten' },
  restore: { from: ['forgotten'], to: 'active' },
  /** A merge input, frozen at its version. */
  merge: { from: ['active'], to: 'merged' },
  /** A merge input coming back when its merge is undone. */
  unmerge: { from: ['merged'], to: 'active' },
  /** The result of an undone merge, whatever its state. */
  retire: { from: ['active', 'forgotten', 'merged'], to: 'retired' },
} as const satisfies Record<
  Exclude<ChangeOp, 'update'>,
  { readonly from: readonly MemoryState[]; readonly to: MemoryState }
>

/** A change op that moves a memory between states. */
export type StateChangeOp = keyof typeof STATE_TRANSITIONS

/** The state every new memory starts in. */
export const INITIAL_STATE: MemoryState = STATE_TRANSITIONS.add.to

/** True when `op` may start from `from`. */
export function canApply(op: StateChangeOp, from: MemoryState): boolean {
  return (STATE_TRANSITIONS[op].from as readonly MemoryState[]).includes(from)
}

/**
 * The state `op` leaves a memory in that is in `from`.
 * @throws PowerContextError `internal_error` when the table does not allow it: writers check
 *   the caller-facing conditions (`state_conflict`) before, so this is a writer's bug.
 */
export function stateAfter(op: StateChangeOp, from: MemoryState): MemoryState {
  if (!canApply(op, from))
    throw new PowerContextError('internal_error', `no ${op} transition from ${from}`)
  return STATE_TRANSITIONS[op].to
}

/** Active: searchable, and the only state `update`, `forget` and `merge` accept. */
export const isActive = (s: MemoryState): boolean => s === 'active'
/** Forgotten: out of search, restorable. */
export const isForgotten = (s: MemoryState): boolean => s === 'forgotten'
/** Merged: an input frozen inside an effective merge. */
export const isMerged = (s: MemoryState): boolean => s === 'merged'
/** Retired: the result of an undone merge; final (cannot be restored). */
export const isRetired = (s: MemoryState): boolean => s === 'retired'
