/**
 * The console never renders a credential it is shown (data stored before the server refused
 * them): every string of every answer the console's client receives passes through the project's
 * generic secret rules (integrations/shared/secret-rules.mjs, the ones the server and the hooks
 * apply; secretlint's provider rules are Node-only and stay on the server), and each match is
 * replaced by `[secret withheld: <rule>]` before any view sees it. Only what holds text people
 * wrote is masked (memory text, reasons, source content, metadata, flush details): ids, hashes
 * and tokens the console sends back (a restore preview's token) pass unchanged.
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

/** Fields whose strings are text people or agents wrote. */
const TEXT_FIELDS = new Set(['text', 'content', 'reason', 'note', 'summary', 'task', 'message'])
/** Fields whose every string is such text, however deep. */
const TEXT_TREES = new Set(['metadata', 'details'])

/** A copy of a JSON value with the strings of its text fields masked (keys and ids kept). */
export function maskDeep<T>(value: T, key = '', inText = false): T {
  if (typeof value === 'string')
    return (inText || TEXT_FIELDS.has(key) ? maskUnder(key, value) : value) as T
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, key, inText)) as T
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, maskDeep(v, k, inText || TEXT_TREES.has(k))]),
    ) as T
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
