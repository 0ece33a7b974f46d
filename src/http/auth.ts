import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest()

/**
 * Checks an `Authorization` header against the configured bearer token in constant time (both
 * sides are hashed first, so neither the length nor the content leaks through timing). The scheme
 * name is case-insensitive.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined) return false
  const match = /^bearer[ \t]+(.+)$/i.exec(header.trim())
  const presented = match?.[1]?.trim() ?? ''
  return timingSafeEqual(digest(presented), digest(token)) && presented.length > 0
}
