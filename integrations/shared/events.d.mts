/** Types of `events.mjs` for TypeScript importers (tests). */
export declare const MAX_QUERY_BYTES: number
/** The query for a prompt: NFC, well-formed, at most MAX_QUERY_BYTES UTF-8 bytes, cut on a character boundary. */
export declare function recallQuery(prompt: string): string
