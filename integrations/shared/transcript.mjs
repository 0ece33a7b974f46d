// The recent conversation from a host's transcript file (Claude Code and Codex both write JSON
// Lines): only the user's and the assistant's text, never tool calls or their output — and,
// separately, the paths the current turn's edit tools wrote. Reads at most the file's last
// 512 KiB; anything unreadable gives no messages and no paths.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'

const TAIL_BYTES = 512 * 1024
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text'])
// Context a host injects into the user's turn (environment, instructions), not the user's words.
const INJECTED = /^\s*<(?:environment_context|user_instructions|system-reminder|command-)/u
/** Claude Code's file-writing tools and the input field naming the file. */
const EDIT_TOOLS = {
  Edit: 'file_path',
  MultiEdit: 'file_path',
  Write: 'file_path',
  NotebookEdit: 'notebook_path',
}
// Codex's apply_patch names each file on a line of its own.
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gmu

/**
 * The transcript's user and assistant text messages, oldest first.
 * @param {unknown} path `transcript_path` of the hook payload
 * @returns {{role: 'user' | 'assistant', text: string}[]}
 */
export function readTranscript(path) {
  return readTurn(path).messages
}

/**
 * The messages (as {@link readTranscript}) and the paths the edit tools of the current turn (the
 * calls after the last user message) wrote, in order, each once: Claude Code's Edit, MultiEdit,
 * Write and NotebookEdit, Codex's apply_patch (its tool, or run by a shell call). Paths are as the
 * tool named them.
 * @param {unknown} path `transcript_path` of the hook payload
 * @returns {{messages: {role: 'user' | 'assistant', text: string}[], edits: string[]}}
 */
export function readTurn(path) {
  const messages = []
  let edits = []
  for (const line of tailLines(path)) {
    const entry = parse(line)
    if (entry === undefined) continue
    const message = messageOf(entry)
    if (message !== undefined) {
      messages.push(message)
      if (message.role === 'user') edits = []
    }
    edits.push(...editsOf(entry))
  }
  return { messages, edits: [...new Set(edits)] }
}

function tailLines(path) {
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
    return lines
  } catch {
    return []
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function parse(line) {
  if (line.trim() === '') return undefined
  try {
    const entry = JSON.parse(line)
    return entry !== null && typeof entry === 'object' ? entry : undefined
  } catch {
    return undefined
  }
}

/** Claude Code: {type, message: {role, content}}; Codex: {type, payload: {type: 'message', role, content}}. */
function messageOf(entry) {
  const m = entry.message ?? entry.payload
  if (m === null || typeof m !== 'object') return undefined
  if (m.type !== undefined && m.type !== 'message') return undefined
  if (m.role !== 'user' && m.role !== 'assistant') return undefined
  const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
  if (!Array.isArray(parts)) return undefined
  const text = parts
    .filter((p) => TEXT_PARTS.has(p?.type) && typeof p.text === 'string' && !INJECTED.test(p.text))
    .map((p) => p.text.trim())
    .filter((t) => t !== '')
    .join('\n')
  return text === '' ? undefined : { role: m.role, text }
}

function editsOf(entry) {
  const content = entry.message?.content
  if (Array.isArray(content)) {
    return content.flatMap((p) => {
      const field = p?.type === 'tool_use' ? EDIT_TOOLS[p.name] : undefined
      const file = field === undefined ? undefined : p.input?.[field]
      return typeof file === 'string' && file !== '' ? [file] : []
    })
  }
  const call = entry.payload
  let patch
  if (call?.name === 'apply_patch') {
    patch = call.input
    if (call.type === 'function_call' && typeof call.arguments === 'string') {
      patch = parse(call.arguments)?.input
    }
  } else patch = shellPatch(call)
  if (typeof patch !== 'string') return []
  return [...patch.matchAll(PATCH_FILE)].map((m) => m[1].trim()).filter((p) => p !== '')
}

/**
 * The patch of a Codex shell call that runs `apply_patch` (`exec_command`'s `cmd`, `shell`'s
 * `command`): Codex applies such a command as a patch itself, and offers models without an
 * `apply_patch` tool only this way to edit.
 */
function shellPatch(call) {
  if (call?.type !== 'function_call' || typeof call.arguments !== 'string') return undefined
  if (call.name !== 'exec_command' && call.name !== 'shell') return undefined
  const args = parse(call.arguments)
  const cmd = Array.isArray(args?.command) ? args.command.join('\n') : args?.cmd
  return typeof cmd === 'string' && /\bapply_patch\b/u.test(cmd) ? cmd : undefined
}
