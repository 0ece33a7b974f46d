/** Types of `envelope.mjs`. */
export declare const PREPARED_CONTEXT_SCHEMA: string
/** The content to inject (`null` for `empty`); throws a HookFailure `invalid_response`. */
export declare function preparedContent(response: unknown, maxBytes: number): string | null
