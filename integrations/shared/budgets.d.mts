/** Types of `budgets.mjs` for TypeScript importers (the server's hook route, tests). */
export declare const RECALL_MAX_BYTES: number
export declare const BRIEF_MAX_BYTES: number
export declare const MAX_QUERY_BYTES: number
export declare function utf8Bytes(text: string): number
export declare function prefixUtf8(text: string, max: number): string
export declare function cutUtf8(text: string, max: number): string
/** The query for a prompt: NFC, well-formed, at most MAX_QUERY_BYTES UTF-8 bytes, cut on a character boundary. */
export declare function recallQuery(prompt: string): string
/** The recall budget beside a brief (undefined: no brief). */
export declare function recallBudget(brief: string | undefined): number
