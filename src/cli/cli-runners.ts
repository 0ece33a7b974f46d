import type { Command } from 'commander'

import { createPowerContextClient } from '../client/index.js'
import type { MemoryRuntime, RuntimeOptions } from '../runtime/memory-runtime.js'
import type { CliIo } from './cli-io.js'
import { CliUsageError, printError } from './cli-io.js'
import { type CallOperation, localCall, remoteCall } from './operation-call.js'
import { remoteSettings } from './remote-settings.js'

/**
 * Runs one command against an opened runtime; `work` returns the exit code, which is recorded.
 * `options` adds runtime options (e.g. an embedding model); its errors are reported like `work`'s.
 */
export type RunWithRuntime = (
  cmd: Command,
  work: (rt: MemoryRuntime, json: boolean) => Promise<number>,
  options?: () => RuntimeOptions,
) => Promise<void>

/**
 * Runs one memory command locally or through `--server-url`, giving it the one wire call of
 * either path; `work` returns the exit code. `options` adds runtime options for the local case
 * (e.g. a generation model for `flush`).
 */
export type RunWithMemory = (
  cmd: Command,
  work: (call: CallOperation, json: boolean) => Promise<number>,
  options?: () => RuntimeOptions,
) => Promise<void>

/** The database a local command opens: `--data-dir` or `--database`, at most one of them. */
export type LocalDatabase = Pick<RuntimeOptions, 'dataDir' | 'databaseUrl'>

/**
 * The runtime options naming `--data-dir` or `--database` (neither: the default data directory).
 * @throws CliUsageError when both are given.
 */
export function localDatabase(flags: {
  readonly dataDir?: string | undefined
  readonly database?: string | undefined
}): LocalDatabase {
  const { dataDir, database } = flags
  if (dataDir !== undefined && database !== undefined)
    throw new CliUsageError('use either --data-dir or --database, not both')
  return {
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(database === undefined ? {} : { databaseUrl: database }),
  }
}

/** Opens a runtime in this process; the runtime and its drivers are loaded only here. */
export async function openLocalRuntime(options: RuntimeOptions): Promise<MemoryRuntime> {
  // Loaded here, not at the top: --help, --version and --server-url never load a driver.
  const { MemoryRuntime } = await import('../runtime/memory-runtime.js')
  return MemoryRuntime.open(options)
}

/**
 * The two ways a command runs: `runLocal` opens a `MemoryRuntime` on the data directory (admin
 * commands; `--server-url` is a usage error there), `runMemory` calls contract operations through
 * the typed client when `--server-url` (or `POWERCONTEXT_CLIENT_SERVER_URL`) is set and through
 * `invokeOperation` on a local runtime otherwise (the path HTTP and MCP requests take).
 */
export function createRunners(
  io: CliIo,
  setExit: (code: number) => void,
): { runLocal: RunWithRuntime; runMemory: RunWithMemory } {
  const runLocal: RunWithRuntime = async (cmd, work, options) => {
    const { dataDir, database, json, serverUrl } = cmd.optsWithGlobals<{
      dataDir?: string
      database?: string
      json?: boolean
      serverUrl?: string
    }>()
    if (serverUrl !== undefined) {
      const name = cmd.parent?.parent === null ? cmd.name() : `${cmd.parent?.name()} ${cmd.name()}`
      setExit(
        printError(
          io,
          new CliUsageError(`${name} works on a local data directory only; drop --server-url`),
          false,
        ),
      )
      return
    }
    let local: LocalDatabase
    try {
      local = localDatabase({ dataDir, database })
    } catch (err) {
      setExit(printError(io, err, false))
      return
    }
    let runtime: MemoryRuntime | undefined
    try {
      runtime = await openLocalRuntime({ ...options?.(), ...local })
      setExit(await work(runtime, json === true))
    } catch (err) {
      setExit(printError(io, err, json === true))
    } finally {
      await runtime?.close()
    }
  }

  const runMemory: RunWithMemory = async (cmd, work, options) => {
    const json = cmd.optsWithGlobals<{ json?: boolean }>().json === true
    let remote
    try {
      remote = remoteSettings(cmd)
    } catch (err) {
      setExit(printError(io, err, json))
      return
    }
    if (remote === undefined)
      return runLocal(cmd, async (rt, asJson) => work(await localCall(rt), asJson), options)
    try {
      const client = createPowerContextClient({ baseUrl: remote.serverUrl, token: remote.token })
      setExit(await work(remoteCall(client), json))
    } catch (err) {
      setExit(printError(io, err, json))
    }
  }

  return { runLocal, runMemory }
}
