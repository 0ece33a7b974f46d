// The recent conversation from a host's transcript file (Claude Code and Codex both write JSON
// Lines): only the user's and the assistant's text, never tool calls or their output. Reads at
// most the file's last 512 KiB; anything unreadable gives no messages.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

const TAIL_BYTES = 512 * 1024
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text'])
// Context a host injects into the user's turn (environment, instructions), not the user's words.
const INJECTED = /^\s*<(?:environment_context|user_instructions|system-reminder|command-)/u

/**
 * The transcript's user and assistant text messages, oldest first.
 * @param {unknown} path `transcript_path` of the hook payload
 * @returns {{role: 'user' | 'assistant', text: string}[]}
 */
export function readTranscript(path) {
  if (typeof path !== 'string' || path === '') return []
  let fd
  try {
    fd = openSync(path, 'r')
    const stat = fstatSync(fd)
    if (!stat.isFile()) return []
    const length = Math.min(stat.size, TAIL_BYTES)
    const buf = Buffer.alloc(length)
    readSync(fd, buf, 0, length, stat.size - length)
    const lines = buf.toString('utf8').split('\n')
    if (stat.size > length) lines.shift() // the first line is cut
    return lines.flatMap(messageOf)
  } catch {
    return []
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function messageOf(line) {
  if (line.trim() === '') return []
  let entry
  try {
    entry = JSON.parse(line)
  } catch {
    return []
  }
  // Claude Code: {type, message: {role, content}}; Codex: {type, payload: {type: 'message', role, content}}.
  const m = entry?.message ?? entry?.payload
  if (m === null || typeof m !== 'object') return []
  if (m.type !== undefined && m.type !== 'message') return []
  if (m.role !== 'user' && m.role !== 'assistant') return []
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
  if (!Array.isArray(parts)) return []
  const text = parts
    .filter((p) => TEXT_PARTS.has(p?.type) && typeof p.text === 'string' && !INJECTED.test(p.text))
    .map((p) => p.text.trim())
    .filter((t) => t !== '')
    .join('\n')
  return text === '' ? [] : [{ role: m.role, text }]
}
