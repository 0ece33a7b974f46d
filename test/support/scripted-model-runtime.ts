/**
 * Runtimes with a scripted generation model: one {@link ChatServer} on loopback for the test file
 * and runtimes on temporary data directories that use it. Registers the file's hooks (listen,
 * reset before each test, close every runtime, the server and the directories after all).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, beforeAll, beforeEach } from 'vitest'

import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { ChatServer } from './chat-server.js'

/** Generation settings a test may change (the model is always the scripted one). */
export interface ScriptedGeneration {
  readonly timeoutMs?: number
  readonly maxRequests?: number
}

export interface ScriptedModel {
  /** The chat server; its script and requests are reset before each test. */
  readonly chat: ChatServer
  /** A runtime on a new data directory using the scripted model (`maxRequests` 1 by default). */
  open(generation?: ScriptedGeneration): Promise<MemoryRuntime>
  /** A runtime on a new data directory without a generation model. */
  openWithout(): Promise<MemoryRuntime>
  /** The chat server's root URL (after the file's `beforeAll`). */
  readonly url: string
}

export function useScriptedModel(dirPrefix: string): ScriptedModel {
  const chat = new ChatServer()
  const dirs: string[] = []
  const runtimes: MemoryRuntime[] = []
  let url = ''
  const dataDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), dirPrefix))
    dirs.push(dir)
    return dir
  }
  const keep = (rt: MemoryRuntime): MemoryRuntime => {
    runtimes.push(rt)
    return rt
  }
  beforeAll(async () => {
    url = await chat.listen()
  })
  afterAll(async () => {
    for (const rt of runtimes) await rt.close()
    await chat.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  beforeEach(() => chat.reset())
  return {
    chat,
    open: async (generation = {}) =>
      keep(
        await MemoryRuntime.open({
          dataDir: dataDir(),
          extraction: { generation: { url, model: 'scripted', maxRequests: 1, ...generation } },
        }),
      ),
    openWithout: async () => keep(await MemoryRuntime.open({ dataDir: dataDir() })),
    get url() {
      return url
    },
  }
}
