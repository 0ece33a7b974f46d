import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type RunningServer, startServer } from '../../src/http/server-run.js'
import { MCP_INSTRUCTIONS } from '../../src/mcp/mcp-instructions.js'
import { MCP_TOOLS } from '../../src/mcp/tool-definitions.js'
import { ContractValidator } from '../../src/wire/contract-validator.js'

const dataDir = mkdtempSync(join(tmpdir(), 'pc-mcp-tools-'))
let server: RunningServer
let client: Client

type Wire = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult
}

async function ok(name: string, args: Record<string, unknown>): Promise<Wire> {
  const r = await call(name, args)
  if (r.isError === true) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`)
  return r.structuredContent as Wire
}

async function failCode(name: string, args: Record<string, unknown>): Promise<string> {
  const r = await call(name, args)
  expect(r.isError).toBe(true)
  const { error } = r.structuredContent as { error: { code: string; message: string } }
  expect(r.content).toEqual([{ type: 'text', text: `${error.code}: ${error.message}` }])
  return error.code
}

/** Every property, at any depth, of a JSON schema that has no description (as dotted paths). */
function undescribed(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const s = schema as Wire
  const out: string[] = []
  for (const [key, value] of Object.entries<Wire>(s['properties'] ?? {})) {
    const at = path === '' ? key : `${path}.${key}`
    if (typeof value['description'] !== 'string' || value['description'].trim() === '') out.push(at)
    out.push(...undescribed(value, at))
  }
  if (s['items'] !== undefined) out.push(...undescribed(s['items'], `${path}[]`))
  for (const key of ['oneOf', 'anyOf', 'allOf'])
    for (const branch of (s[key] ?? []) as unknown[]) out.push(...undescribed(branch, path))
  return out
}

async function remember(scope_id: string, kind: string, text: string): Promise<Wire> {
  const r = await ok('remember_memory', { scope_id, entries: [{ kind, text }] })
  return r.results[0].memory.memory_ref
}

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, dataDir, logLevel: 'silent' })
  client = new Client({ name: 'mcp-tools-test', version: '0.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url)))
})

afterAll(async () => {
  await client?.close()
  await server?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('MCP tools for a model', () => {
  it('describes every tool and every parameter, and sends instructions', async () => {
    expect(client.getInstructions()).toBe(MCP_INSTRUCTIONS)
    for (const word of ['scope_id', 'revision_conflict', 'memory_ref', 'untrusted'])
      expect(MCP_INSTRUCTIONS).toContain(word)
    const { tools } = await client.listTools()
    expect(tools).toHaveLength(10)
    for (const tool of tools as Tool[]) {
      expect(undescribed(tool.inputSchema), tool.name).toEqual([])
      const description = tool.description ?? ''
      // A usable example: the arguments after "Example arguments:" are valid JSON with a scope.
      const example = description.match(/Example arguments: (\{.*\})$/)?.[1]
      expect(example, tool.name).toBeDefined()
      expect(JSON.parse(example!)).toHaveProperty('scope_id')
      expect(description.startsWith('Use it') || description.includes(' Use it ')).toBe(true)
    }
    const preview = tools.find((t) => t.name === 'preview_restore')!
    expect(preview.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    expect(preview.inputSchema.required).toEqual(['memory_id'])
    const merge = tools.find((t) => t.name === 'merge_memories')!
    expect(merge.annotations?.readOnlyHint).toBe(false)
    expect(merge.inputSchema.required).toEqual(['inputs', 'kind', 'text'])
  })

  it("each tool's example (the contract's x-mcp-tool example) is a valid call of its operation", () => {
    const validator = new ContractValidator()
    expect(MCP_TOOLS).toHaveLength(10)
    for (const { requestSchema, tool } of MCP_TOOLS) {
      const text = tool.description!.match(/Example arguments: (\{.*\})$/)![1]!
      // A placeholder such as "<preview_token from preview_restore>" stands for a value of its field.
      const example = JSON.parse(text.replace(/"<[^"]+>"/g, '"placeholder"'))
      expect(validator.check(requestSchema, example), tool.name).toEqual([])
    }
    // The check can fail: a wrongly typed argument is refused.
    expect(validator.check('ForgetRequest', { scope_id: 's', memory_id: 1 })).not.toEqual([])
  })

  it('the schema walk finds a missing description (the check can fail)', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', description: 'a' },
        b: { type: 'array', description: 'b', items: { properties: { c: { type: 'string' } } } },
      },
    }
    expect(undescribed(schema)).toEqual(['b[].c'])
  })

  it('merges memories, previews the restore and applies it with the token', async () => {
    const scope_id = 'mcp-merge'
    const a = await remember(scope_id, 'fact', 'The API listens on port 8080')
    const b = await remember(scope_id, 'fact', 'The API server port is 8080 in every environment')
    const merged = await ok('merge_memories', {
      scope_id,
      inputs: [a, b],
      kind: 'fact',
      text: 'The API listens on port 8080 in every environment',
      reason: 'duplicates',
    })
    expect(merged.status).toBe('merged')
    expect(merged.inputs.map((m: Wire) => m.state)).toEqual(['merged', 'merged'])
    const c = merged.memory.memory_ref
    const again = await ok('merge_memories', {
      scope_id,
      inputs: [a, b],
      kind: 'fact',
      text: 'The API listens on port 8080 in every environment',
    })
    expect(again).toMatchObject({ status: 'unchanged', merge_id: merged.merge_id })
    const hits = await ok('search_memory', { scope_id, query: 'API port' })
    expect(hits.hits.map((h: Wire) => h.memory_ref)).toEqual([c])

    const preview = await ok('preview_restore', { scope_id, memory_id: a.artifact_id })
    expect(preview.plan.restore.map((p: Wire) => p.memory_id).sort()).toEqual(
      [a.artifact_id, b.artifact_id].sort(),
    )
    expect(preview.plan.retire).toEqual([{ memory_id: c.artifact_id, version: 1 }])
    // Read-only: previewing changed nothing.
    expect((await ok('get_memory', { scope_id, memory_id: a.artifact_id })).state).toBe('merged')

    const restored = await ok('restore_memory', {
      scope_id,
      memory_id: a.artifact_id,
      preview_token: preview.preview_token,
    })
    expect(restored.status).toBe('restored')
    expect(restored.retired.map((m: Wire) => m.memory_ref)).toEqual([c])
    expect((await ok('get_memory', { scope_id, memory_id: c.artifact_id })).state).toBe('retired')
    expect((await ok('get_memory', { scope_id, memory_id: b.artifact_id })).state).toBe('active')
  })

  it('types the failures of the new tools', async () => {
    const scope_id = 'mcp-merge-errors'
    const a = await remember(scope_id, 'decision', 'Deploy on Tuesdays')
    const b = await remember(scope_id, 'decision', 'Deploys happen on Tuesday mornings')
    expect(await failCode('merge_memories', { scope_id, inputs: [a], kind: 'x', text: 'y' })).toBe(
      'invalid_request',
    )
    const stale = { artifact_id: a.artifact_id, revision: 2 }
    expect(
      await failCode('merge_memories', { scope_id, inputs: [stale, b], kind: 'x', text: 'y' }),
    ).toBe('revision_conflict')
    expect(await failCode('preview_restore', { scope_id, memory_id: 'mem_missing' })).toBe(
      'memory_not_found',
    )
    expect(await failCode('preview_restore', { scope_id, memory_id: a.artifact_id, x: 1 })).toBe(
      'invalid_request',
    )

    // A token from before a change no longer applies: preview_stale, and nothing is written.
    await ok('forget_memory', { scope_id, memory_id: a.artifact_id })
    const preview = await ok('preview_restore', { scope_id, memory_id: a.artifact_id })
    await ok('restore_memory', { scope_id, memory_id: a.artifact_id })
    await ok('forget_memory', { scope_id, memory_id: a.artifact_id, reason: 'again' })
    expect(
      await failCode('restore_memory', {
        scope_id,
        memory_id: a.artifact_id,
        preview_token: preview.preview_token,
      }),
    ).toBe('preview_stale')
    expect((await ok('get_memory', { scope_id, memory_id: a.artifact_id })).state).toBe('forgotten')
  })
})
