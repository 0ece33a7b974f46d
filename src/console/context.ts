import { createContext } from 'preact'
import { useContext } from 'preact/hooks'

import type { CapabilitiesResponse, PowerContextClient } from '../client/index.js'

/** What every view gets: the client, the server's capabilities, and the unauthorized hook. */
export interface ConsoleContext {
  readonly client: PowerContextClient
  readonly capabilities: CapabilitiesResponse
  /** Views call it when a call answered `unauthorized`: the console asks for a token again. */
  readonly onUnauthorized: () => void
}

export const Console = createContext<ConsoleContext | null>(null)

/** The console context; views render only inside it. */
export function useConsole(): ConsoleContext {
  const ctx = useContext(Console)
  if (ctx === null) throw new Error('useConsole outside the console')
  return ctx
}
