import { describe, expect, expectTypeOf, it } from 'vitest'

import type { CallOptions, PowerContextClient } from '../../src/client/index.js'
import { createPowerContextClient } from '../../src/client/index.js'
import type * as Wire from '../../src/client/wire-types.js'
import {
  CLIENT_OPERATIONS,
  type ClientMethodName,
  type ClientOperationTypes,
} from '../../src/contract/client-operations.js'
import { OPERATIONS } from '../../src/contract/operations.js'

// The client's methods are built from the generated table (src/contract/client-operations.ts).
// These checks are types: `npm run static` (tsc over test/) fails when one does not hold.

/** The client's signatures as they were written by hand before the table. */
interface HandWrittenClient {
  live(options?: CallOptions): Promise<Wire.LiveResponse>
  ready(options?: CallOptions): Promise<Wire.ReadinessResponse>
  openapi(options?: CallOptions): Promise<Wire.OpenApiDocument>
  metrics(options?: CallOptions): Promise<string>
  capabilities(options?: CallOptions): Promise<Wire.CapabilitiesResponse>
  captureContent(
    body: Wire.CaptureContentRequest,
    options?: CallOptions,
  ): Promise<Wire.CaptureContentResponse>
  remember(body: Wire.RememberRequest, options?: CallOptions): Promise<Wire.RememberResponse>
  update(body: Wire.UpdateRequest, options?: CallOptions): Promise<Wire.UpdateResponse>
  forget(body: Wire.ForgetRequest, options?: CallOptions): Promise<Wire.ForgetResponse>
  restore(body: Wire.RestoreRequest, options?: CallOptions): Promise<Wire.RestoreResponse>
  restorePreview(
    body: Wire.RestorePreviewRequest,
    options?: CallOptions,
  ): Promise<Wire.RestorePreviewResponse>
  merge(body: Wire.MergeRequest, options?: CallOptions): Promise<Wire.MergeResponse>
  get(body: Wire.GetRequest, options?: CallOptions): Promise<Wire.GetResponse>
  history(body: Wire.HistoryRequest, options?: CallOptions): Promise<Wire.HistoryResponse>
  list(body: Wire.ListRequest, options?: CallOptions): Promise<Wire.ListResponse>
  search(body: Wire.SearchRequest, options?: CallOptions): Promise<Wire.SearchResponse>
  prepareContext(
    body: Wire.PrepareContextRequest,
    options?: CallOptions,
  ): Promise<Wire.PreparedContextResponse>
  contextReceipts(body: Wire.ReceiptsRequest, options?: CallOptions): Promise<Wire.ReceiptsResponse>
  claudeCodeHook(
    body: Wire.ClaudeCodeHookPayload,
    options?: CallOptions,
  ): Promise<Wire.ClaudeCodeHookOutput>
  changes(body: Wire.ChangesRequest, options?: CallOptions): Promise<Wire.ChangesResponse>
  flush(body: Wire.FlushRequest, options?: CallOptions): Promise<Wire.FlushResponse>
  listScopes(body: Wire.ListScopesRequest, options?: CallOptions): Promise<Wire.ListScopesResponse>
  getSources(body: Wire.GetSourcesRequest, options?: CallOptions): Promise<Wire.GetSourcesResponse>
  listSources(
    body: Wire.ListSourcesRequest,
    options?: CallOptions,
  ): Promise<Wire.ListSourcesResponse>
  flushRecords(
    body: Wire.FlushRecordsRequest,
    options?: CallOptions,
  ): Promise<Wire.FlushRecordsResponse>
  redact(body: Wire.RedactRequest, options?: CallOptions): Promise<Wire.RedactResponse>
}

type Method<K extends ClientMethodName> = PowerContextClient[K]
type Contract<K extends ClientMethodName> = ClientOperationTypes[K]

/** Per method: it takes the contract's request (a body exactly when the contract has one). */
type TakesContractRequest = {
  [K in ClientMethodName]: Contract<K>['request'] extends undefined
    ? Parameters<Method<K>> extends [options?: CallOptions | undefined]
      ? true
      : false
    : [Contract<K>['request']] extends [Parameters<Method<K>>[0]]
      ? Parameters<Method<K>>[1] extends CallOptions | undefined
        ? true
        : false
      : false
}
/** Per method: what the contract's response is, the method's result holds. */
type ReturnsContractResponse = {
  [K in ClientMethodName]: [Contract<K>['response']] extends [Awaited<ReturnType<Method<K>>>]
    ? true
    : false
}

describe('the client built from the generated table', () => {
  it('keeps every method name and signature of the hand-written client', () => {
    expectTypeOf<PowerContextClient>().toEqualTypeOf<HandWrittenClient>()
    expectTypeOf<keyof PowerContextClient>().toEqualTypeOf<ClientMethodName>()
  })

  it("takes each operation's contract request and returns its contract response", () => {
    expectTypeOf<TakesContractRequest[ClientMethodName]>().toEqualTypeOf<true>()
    expectTypeOf<ReturnsContractResponse[ClientMethodName]>().toEqualTypeOf<true>()
    // Where the client corrects the generator (wire-types.ts), only the direction above holds.
    expectTypeOf<Method<'remember'>>().parameter(0).toEqualTypeOf<Contract<'remember'>['request']>()
    expectTypeOf<Method<'get'>>().returns.resolves.toEqualTypeOf<Contract<'get'>['response']>()
  })

  it('sends no path parameters (no operation has one yet)', () => {
    // A new operation with `{name}` in its path fails here until the client fills them in.
    expectTypeOf<(typeof CLIENT_OPERATIONS)[ClientMethodName]['pathParams']>().toEqualTypeOf<
      readonly []
    >()
  })

  it('has one method per contract operation, as the table names it', () => {
    const pc = createPowerContextClient({ baseUrl: 'http://127.0.0.1:9' })
    expect(Object.keys(pc).sort()).toEqual(Object.keys(CLIENT_OPERATIONS).sort())
    expect(
      Object.values(CLIENT_OPERATIONS)
        .map((op) => op.operationId)
        .sort(),
    ).toEqual(OPERATIONS.map((op) => op.operationId).sort())
    for (const [name, op] of Object.entries(CLIENT_OPERATIONS))
      expect(name).toBe(op.operationId === 'openapiDocument' ? 'openapi' : op.operationId)
    for (const op of OPERATIONS) {
      const entry = Object.values(CLIENT_OPERATIONS).find((e) => e.operationId === op.operationId)
      expect(entry).toMatchObject({ method: op.method, path: op.path })
      expect(entry?.successStatuses).toEqual([op.successStatus])
    }
    expect(CLIENT_OPERATIONS.ready.answerStatuses).toEqual([503])
    expect(CLIENT_OPERATIONS.metrics).toMatchObject({ responseType: null, responseFormat: 'text' })
  })
})
