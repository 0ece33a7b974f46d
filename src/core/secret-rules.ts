/**
 * Admission rule of the memory-family spec, checked in code: candidates must not carry secrets
 * (API keys, tokens, private keys, passwords). Applied to every candidate a flush produces, with
 * or without a model, and by the agent hooks before they capture anything. The rules live once,
 * in the dependency-free `integrations/shared/secret-rules.mjs`, so that the hooks (which import
 * only `node:` built-ins) and the server apply the same list; this module is their typed entry
 * for the server.
 */
export type { SecretMatch, SecretRule } from '../../integrations/shared/secret-rules.mjs'
export {
  findSecret,
  looksLikeSecret,
  SECRET_RULES,
} from '../../integrations/shared/secret-rules.mjs'
