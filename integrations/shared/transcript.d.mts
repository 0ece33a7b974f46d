/** Types of `transcript.mjs` for TypeScript importers (tests). */
export interface TranscriptMessage {
  readonly role: 'user' | 'assistant'
  readonly text: string
}
/** The transcript's user and assistant text messages, oldest first. */
export declare function readTranscript(path: unknown): TranscriptMessage[]
/** The messages and the paths the current turn's edit tools wrote. */
export declare function readTurn(path: unknown): { messages: TranscriptMessage[]; edits: string[] }
