/**
 * Puts `[mcp_servers.powercontext]` (and, unless the file already says, `[features] hooks =
 * true`) into a Codex `config.toml` while keeping the rest of the file
 * as the user wrote it (comments, order, spacing): the table is appended, or its own lines are
 * replaced, and the result is parsed again (smol-toml) to check that only our table changed. A
 * file whose entry is written in another form (inline table, dotted keys) is re-serialised
 * whole instead, which drops its comments; the backup keeps them.
 */
import { isDeepStrictEqual } from 'node:util'

import { parse, stringify, type TomlTable } from 'smol-toml'

import { MCP_SERVER_NAME } from '../../agent-hosts.js'
import type { FoundFile } from '../../config-files.js'
import { unreadableFile } from '../../config-files.js'

/** The new text (unchanged when `changed` is false) and how it was made. */
export interface TomlEdit {
  readonly text: string
  readonly changed: boolean
  /** `appended`, `replaced` (our lines only) or `rewritten` (the whole file, comments lost). */
  readonly how: 'unchanged' | 'appended' | 'replaced' | 'rewritten'
}

/** Parses a Codex config (a missing file is empty). */
export function parseCodexConfig(file: FoundFile): TomlTable {
  try {
    return parse(file.text ?? '')
  } catch (err) {
    throw unreadableFile(file.path, (err as Error).message.split('\n')[0] ?? 'not TOML')
  }
}

/** Same content, whatever the prototypes (smol-toml's tables are not plain objects). */
const same = (a: unknown, b: unknown): boolean =>
  isDeepStrictEqual(JSON.parse(JSON.stringify(a ?? null)), JSON.parse(JSON.stringify(b ?? null)))

const serversOf = (t: TomlTable): TomlTable | undefined =>
  typeof t['mcp_servers'] === 'object' ? (t['mcp_servers'] as TomlTable) : undefined

/** Our entry as the config has it, or undefined. */
export const codexMcpServer = (t: TomlTable): unknown => serversOf(t)?.[MCP_SERVER_NAME]

const HEADER = new RegExp(
  `^[ \\t]*\\[[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*(?:${MCP_SERVER_NAME}|"${MCP_SERVER_NAME}")[ \\t]*\\][ \\t]*(?:#.*)?$`,
)
const ANY_HEADER = /^[ \t]*\[/
const OUR_SUBTABLE = new RegExp(
  `^[ \\t]*\\[[ \\t]*mcp_servers[ \\t]*\\.[ \\t]*"?${MCP_SERVER_NAME}"?[ \\t]*\\.`,
)

/** Our table's text (and its sub-tables, e.g. `[mcp_servers.powercontext.http_headers]`). */
const block = (entry: Readonly<Record<string, unknown>>): string => {
  const text = stringify({ mcp_servers: { [MCP_SERVER_NAME]: entry } })
  return text.endsWith('\n') ? text : `${text}\n`
}

/** Everything but our entry, to check that an edit touched nothing else. */
function withoutOurs(t: TomlTable): TomlTable {
  const servers = serversOf(t)
  if (servers === undefined || !(MCP_SERVER_NAME in servers)) return t
  const rest = { ...servers }
  delete rest[MCP_SERVER_NAME]
  const out = { ...t }
  if (Object.keys(rest).length === 0) delete out['mcp_servers']
  else out['mcp_servers'] = rest
  return out
}

function textEdit(text: string, entry: Readonly<Record<string, unknown>>): TomlEdit | undefined {
  const lines = text.split('\n')
  const start = lines.findIndex((l) => HEADER.test(l))
  if (start === -1) {
    if (codexMcpServer(parse(text)) !== undefined) return undefined
    const sep = text === '' ? '' : text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n'
    return { text: `${text}${sep}${block(entry)}`, changed: true, how: 'appended' }
  }
  let end = start + 1
  while (end < lines.length) {
    const line = lines[end] ?? ''
    if (ANY_HEADER.test(line) && !OUR_SUBTABLE.test(line)) break
    end++
  }
  // Keep blank lines and comments that lead into the next table.
  while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1] ?? '')) end--
  const replaced = [...lines.slice(0, start), block(entry).trimEnd(), ...lines.slice(end)]
  return { text: replaced.join('\n'), changed: true, how: 'replaced' }
}

/**
 * Sets our MCP server entry in a Codex config. Unchanged when it already is `entry`.
 * @throws PowerContextError `invalid_request` when the file is not TOML.
 */
export function setCodexMcpServer(
  file: FoundFile,
  entry: Readonly<Record<string, unknown>>,
): TomlEdit {
  const text = file.text ?? ''
  const before = parseCodexConfig(file)
  if (same(codexMcpServer(before), entry)) return { text, changed: false, how: 'unchanged' }
  const edit = textEdit(text, entry)
  if (edit !== undefined) {
    try {
      const after = parse(edit.text)
      if (same(codexMcpServer(after), entry) && same(withoutOurs(after), withoutOurs(before)))
        return edit
    } catch {
      // fall through to a whole rewrite
    }
  }
  const servers = { ...(serversOf(before) ?? {}), [MCP_SERVER_NAME]: entry }
  return { text: stringify({ ...before, mcp_servers: servers }), changed: true, how: 'rewritten' }
}

const FEATURES = /^[ \t]*\[[ \t]*features[ \t]*\][ \t]*(?:#.*)?$/
const DEPRECATED_ON = /^([ \t]*)codex_hooks([ \t]*=[ \t]*true\b.*)$/

/**
 * Turns Codex hooks on (`[features] hooks = true`) unless the config already sets `hooks`; a
 * deprecated `codex_hooks = true` (what earlier versions of `setup` wrote) becomes `hooks = true`.
 * A user's `false`, under either name, stays: {@link hooksTurnedOff} reports it.
 */
export function enableCodexHooks(file: FoundFile): TomlEdit {
  const text = file.text ?? ''
  const before = parseCodexConfig(file)
  const features = (before['features'] ?? {}) as TomlTable
  if ('hooks' in features || features['codex_hooks'] === false)
    return { text, changed: false, how: 'unchanged' }
  const lines = text.split('\n')
  const at = lines.findIndex((l) => FEATURES.test(l))
  const renamed = lines.findIndex((l, i) => i > at && at !== -1 && DEPRECATED_ON.test(l))
  const next =
    at === -1
      ? `${text}${text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n'}[features]\nhooks = true\n`
      : renamed !== -1
        ? lines
            .map((l, i) => (i === renamed ? l.replace(DEPRECATED_ON, '$1hooks$2') : l))
            .join('\n')
        : [...lines.slice(0, at + 1), 'hooks = true', ...lines.slice(at + 1)].join('\n')
  const { codex_hooks: _old, ...rest } = features
  const wanted = { ...before, features: { ...rest, hooks: true } }
  try {
    if (same(parse(next), wanted))
      return { text: next, changed: true, how: at === -1 ? 'appended' : 'replaced' }
  } catch {
    // fall through to a whole rewrite
  }
  return { text: stringify(wanted), changed: true, how: 'rewritten' }
}

/** `[features] hooks = false` (or `codex_hooks = false`) in a config, named as written. */
export function hooksTurnedOff(config: TomlTable): string | undefined {
  const f = config['features']
  if (typeof f !== 'object' || f === null) return undefined
  const t = f as TomlTable
  if (t['hooks'] === false) return 'hooks = false'
  if (!('hooks' in t) && t['codex_hooks'] === false) return 'codex_hooks = false'
  return undefined
}
