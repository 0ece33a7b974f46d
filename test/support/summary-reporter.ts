import type { Reporter, TestModule } from 'vitest/node'

/**
 * Prints `N passed, N failed, N skipped` alone on the last line, the summary CI reads
 * (vitest's own summary is not in a shape CI recognises; see shared/NOTES.md). A file or suite
 * that failed outside any test (an import error, a failing `beforeAll`) counts as one failure, so
 * the line never reads "0 failed" for a broken run. Above it, one line per distinct skip reason
 * (`ctx.skip(note)`) with its count, so no skip goes unexplained in a CI log.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    const reasons = new Map<string, number>()
    for (const mod of testModules) {
      let failedHere = 0
      for (const test of mod.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed += 1
        else if (state === 'failed') failedHere += 1
        else {
          skipped += 1
          const result = test.result()
          const note = result.state === 'skipped' ? result.note : undefined
          if (note !== undefined) reasons.set(note, (reasons.get(note) ?? 0) + 1)
        }
      }
      const suiteFailures = [...mod.children.allSuites()].filter(
        (s) => s.state() === 'failed',
      ).length
      if (failedHere === 0 && (mod.state() === 'failed' || suiteFailures > 0)) failedHere = 1
      failed += failedHere
    }
    for (const [note, n] of reasons) process.stdout.write(`\nskipped ${n}: ${note}`)
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
