/**
 * The Python client generator handles what the contract may come to hold: a route answering
 * text (metrics), a property named after a Python keyword, nullable and one-of shapes, inline
 * objects, a GET without parameters. The generated module is imported by python3 and introspected.
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'

import { generatePythonClient, snake } from '../../scripts/python-client-codegen.js'

const PACKAGE = fileURLToPath(new URL('../../clients/python/powercontext_client', import.meta.url))
const CONTRACT = fileURLToPath(new URL('../../openapi/powercontext.yaml', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'pc-pycodegen-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

type Doc = {
  paths: Record<string, unknown>
  components: { schemas: Record<string, unknown> }
}

function extended(): Doc {
  const doc = parse(readFileSync(CONTRACT, 'utf8')) as Doc
  doc.paths['/metrics'] = {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics.',
      responses: {
        '200': { description: 'text', content: { 'text/plain': { schema: { type: 'string' } } } },
      },
    },
  }
  doc.paths['/v1/example/window'] = {
    post: {
      operationId: 'exampleWindow',
      summary: 'A synthetic operation.',
      requestBody: {
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/ExampleRequest' } },
        },
      },
      responses: {
        '200': {
          description: 'ok',
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ExampleResponse' } },
          },
        },
      },
    },
  }
  doc.components.schemas['ExampleRequest'] = {
    type: 'object',
    required: ['from', 'scope_id'],
    properties: {
      scope_id: { $ref: '#/components/schemas/ScopeId' },
      from: { type: 'integer' },
      window: { type: 'object', properties: { size: { type: 'integer' } } },
    },
  }
  doc.components.schemas['ExampleResponse'] = {
    type: 'object',
    required: ['items', 'next'],
    properties: {
      items: {
        type: 'array',
        items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      },
      next: { oneOf: [{ type: 'null' }, { $ref: '#/components/schemas/ArtifactRef' }] },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  }
  return doc
}

describe('python client generator', () => {
  it('names methods in snake_case after the operation ids', () => {
    expect(['captureContent', 'restorePreview', 'flushRecords', 'get'].map(snake)).toEqual([
      'capture_content',
      'restore_preview',
      'flush_records',
      'get',
    ])
  })

  it('generates an importable module for a contract with text routes, keywords and nested shapes', () => {
    const pkg = join(dir, 'powercontext_client')
    cpSync(PACKAGE, pkg, { recursive: true })
    writeFileSync(join(pkg, '_generated.py'), generatePythonClient(extended()))
    const script = `
import inspect, json, sys
sys.path.insert(0, ${JSON.stringify(dir)})
import powercontext_client as pc
from powercontext_client._generated import ExampleRequest, ExampleResponse, ExampleRequestWindow
sig = inspect.signature(pc.PowerContextClient.example_window)
r = ExampleResponse.from_dict({"items": [{"id": "a"}], "next": None, "labels": {"x": "y"}, "new": 1})
print(json.dumps({
  "params": list(sig.parameters),
  "metrics": pc.OPERATIONS["metrics"].method,
  "request": ExampleRequest(scope_id="s", from_=3, window=ExampleRequestWindow(size=2)).to_dict(),
  "items": [i.id for i in r.items],
  "next": r.next,
  "extra": r.extra,
  "live": list(inspect.signature(pc.PowerContextClient.live).parameters),
}))
`
    const out = JSON.parse(execFileSync('python3', ['-c', script], { encoding: 'utf8' })) as Record<
      string,
      unknown
    >
    expect(out).toEqual({
      params: ['self', 'request', 'scope_id', 'from_', 'window', 'request_id', 'timeout'],
      metrics: 'GET',
      request: { scope_id: 's', from: 3, window: { size: 2 } },
      items: ['a'],
      next: null,
      extra: { new: 1 },
      live: ['self', 'request_id', 'timeout'],
    })
  })
})
