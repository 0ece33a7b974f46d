/**
 * The console never renders a credential it is shown (data stored before the server refused
 * them): every string of every answer the console's client receives passes through the project's
 * generic secret rules (integrations/shared/secret-rules.mjs, the ones the server and the hooks
 * apply; secretlint's provider rules are Node-only and stay on the server), and each match is
 * replaced by `[secret withheld: <rule>]` before any view sees it.
 */
import { GENERIC_RULES, maskSecrets } from '../../integrations/shared/secret-rules.mjs'
import type { PowerContextClient } from '../client/index.js'

/** `text` with every credential the generic rules find masked. */
export const maskText = (text: string): string => maskSecrets(text, GENERIC_RULES)

/** A string under `key`: read as `key: value`, so that a credential's name counts (`api_key`). */
function maskUnder(key: string, value: string): string {
  if (key === '') return maskText(value)
  const lead = `${key}: `
  const masked = maskText(lead + value)
  if (masked === lead + value) return value
  return masked.startsWith(lead) ? masked.slice(lead.length) : maskText(value)
}

/** A copy of a JSON value with every string masked (keys kept). */
export function maskDeep<T>(value: T, key = ''): T {
  if (typeof value === 'string') return maskUnder(key, value) as T
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, key)) as T
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, k)])) as T
  return value
}

/** The client, with every answer masked ({@link maskDeep}) before the console uses it. */
export function maskingClient(client: PowerContextClient): PowerContextClient {
  return new Proxy(client, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver) as unknown
      if (typeof member !== 'function') return member
      return async (...args: unknown[]) =>
        maskDeep(await (member as (...a: unknown[]) => Promise<unknown>).apply(target, args))
    },
  })
}
