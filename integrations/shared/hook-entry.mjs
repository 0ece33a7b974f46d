// The first module a hook program loads, kept to node: built-ins so that a run the turn waits
// for starts fast. `node powercontext-hook.mjs` runs the event at once (run-hook.mjs).
// `--detach` (the Stop hook): the payload is copied into a private file (0600, in the hooks'
// state directory) and a detached worker (`--worker <file>`) does the work after the host's turn
// has ended — the transcript read, the secret rules and the capture stay on this machine, the
// host does not wait for them. A payload that cannot be handed over runs at once instead.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import { privateDir, stateDir } from './session-state.mjs'

/** Largest stdin payload read (a prompt is at most 200,000 characters). */
export const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
const PENDING_DIR = 'pending'
/** A payload file older than this was left by a worker that never ran: it is removed. */
const STALE_MS = 60 * 60 * 1000

/**
 * Runs one hook program for a host profile (see run-hook.mjs) as its arguments say.
 * @param {Parameters<typeof import("./run-hook.mjs").runHook>[0]} profile the host profile
 * @param {string} script the hook program's own path (the worker runs it again)
 */
export async function hookEntry(profile, script, io = process) {
  const [mode, file] = io.argv.slice(2)
  if (mode === '--worker' && typeof file === 'string') return runWorker(profile, file, io)
  if (mode !== '--detach') return runNow(profile, io, io.stdin)
  let payload
  try {
    payload = await readStdin(io.stdin)
  } catch {
    return io.exit(0) // larger than any payload, or a closed pipe: nothing to do (fail open)
  }
  const handed = handOver(io.env, script, payload)
  if (!handed) return runNow(profile, io, [payload])
  io.exit(0)
}

/**
 * @param {Parameters<typeof import("./run-hook.mjs").runHook>[0]} profile the host profile
 * @param {any} io the process (argv, env, stdin, exit)
 * @param {any} input the payload's bytes (stdin, or the bytes handed over)
 */
async function runNow(profile, io, input) {
  const { runHook } = await import('./run-hook.mjs')
  return runHook(profile, io, input)
}

/**
 * The worker: the payload from its file (removed at once), then the event as usual.
 * @param {Parameters<typeof import("./run-hook.mjs").runHook>[0]} profile the host profile
 * @param {string} file the payload file
 * @param {any} io the process
 */
async function runWorker(profile, file, io) {
  let payload
  try {
    payload = readFileSync(file)
    unlinkSync(file)
  } catch {
    return io.exit(0)
  }
  return runNow(profile, io, [payload])
}

/** @param {AsyncIterable<Buffer>} stdin */
async function readStdin(stdin) {
  const chunks = []
  let size = 0
  for await (const chunk of stdin) {
    size += chunk.length
    if (size > MAX_PAYLOAD_BYTES) throw new Error('payload too large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * Writes the payload to a private file and starts the detached worker; false when it cannot.
 * @param {Record<string, string | undefined>} env
 * @param {string} script
 * @param {Buffer} payload
 */
function handOver(env, script, payload) {
  const base = stateDir(env)
  if (base === undefined) return false
  const dir = join(base, PENDING_DIR)
  const file = join(dir, `${process.pid}-${randomBytes(6).toString('hex')}.json`)
  try {
    privateDir(dir)
    removeStale(dir)
    writeFileSync(file, payload, { mode: 0o600, flag: 'wx' })
  } catch {
    return false
  }
  try {
    const child = spawn(process.execPath, [script, '--worker', file], {
      detached: true,
      stdio: 'ignore',
      env,
    })
    child.on('error', () => {})
    child.unref()
    return true
  } catch {
    try {
      unlinkSync(file)
    } catch {
      // already gone
    }
    return false
  }
}

/**
 * Removes the payload files no worker took (a worker removes its own first thing).
 * @param {string} dir
 */
function removeStale(dir) {
  const now = Date.now()
  for (const name of readdirSync(dir)) {
    try {
      const path = join(dir, name)
      if (now - statSync(path).mtimeMs > STALE_MS) unlinkSync(path)
    } catch {
      // taken by its worker meanwhile
    }
  }
}
