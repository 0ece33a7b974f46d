/*
 * The shared backend conformance suite (one suite for every backend): every rule of docs/memory-model.md, storage.md and search.md that the
 * storage SPI exposes, tested through the SPI only. Each adapter runs it with a few lines:
 *
 *   describeMemoryBackend({ name: 'sqlite', open: () => openSqliteBackend({ database: ':memory:' }) })
 *
 * Each area opens one backend (beforeAll) and closes it (afterAll); each test uses a fresh random
 * scope id, so nothing needs cleaning up. A backend may skip tests by path with a reason; a skip
 * entry naming a test that does not exist fails the suite.
 */
import { describe, expect, it } from 'vitest'

import type { ConformanceOptions } from './harness.case.js'
import { ConformanceSuite } from './harness.case.js'
import { badInputArea } from './memory-bad-input.case.js'
import { flushArea } from './memory-flush.case.js'
import { freshnessArea } from './memory-freshness.case.js'
import { historyPagesArea } from './memory-history-pages.case.js'
import { forgetRestoreArea, getHistoryArea } from './memory-lifecycle.case.js'
import { listingArea } from './memory-listing.case.js'
import { mergeArea } from './memory-merge.case.js'
import { mergeCorruptArea } from './memory-merge-corrupt.case.js'
import { mergePropertiesArea } from './memory-merge-properties.case.js'
import { mergeRestoreArea, restorePreviewArea } from './memory-merge-restore.case.js'
import { changesArea, listArea } from './memory-reads.case.js'
import { receiptsArea } from './memory-receipts.case.js'
import { recentArea } from './memory-recent.case.js'
import { redactArea } from './memory-redact.case.js'
import { redactRecordArea } from './memory-redact-record.case.js'
import { relatedArea } from './memory-related.case.js'
import { rememberArea } from './memory-remember.case.js'
import { searchArea } from './memory-search.case.js'
import { secretsArea } from './memory-secrets.case.js'
import { sourceIdsArea } from './memory-source-ids.case.js'
import { maintenanceArea, scopesArea, sourcesArea } from './memory-sources.case.js'
import { updateArea } from './memory-update.case.js'
import { vectorArea } from './memory-vector.case.js'

export type { BackendUnderTest, ConformanceOptions, SkipEntry } from './harness.case.js'
export { expectCode } from './harness.case.js'

/** Registers the conformance suite for one backend under `describe(options.name)`. */
export function describeMemoryBackend(options: ConformanceOptions): void {
  describe(options.name, () => {
    const suite = new ConformanceSuite(options)
    rememberArea(suite)
    updateArea(suite)
    forgetRestoreArea(suite)
    getHistoryArea(suite)
    historyPagesArea(suite)
    listArea(suite)
    changesArea(suite)
    searchArea(suite)
    sourcesArea(suite)
    sourceIdsArea(suite)
    scopesArea(suite)
    listingArea(suite)
    recentArea(suite)
    receiptsArea(suite)
    maintenanceArea(suite)
    badInputArea(suite)
    secretsArea(suite)
    mergeArea(suite)
    mergeRestoreArea(suite)
    restorePreviewArea(suite)
    mergeCorruptArea(suite)
    mergePropertiesArea(suite)
    vectorArea(suite)
    flushArea(suite)
    freshnessArea(suite)
    relatedArea(suite)
    redactArea(suite)
    redactRecordArea(suite)

    it('skip entries name existing tests and give a reason', () => {
      expect(suite.skipProblems()).toEqual([])
    })
  })
}
