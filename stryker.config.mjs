// @ts-check
/**
 * Mutation testing: `npm run mutate` mutates the pure core and the storage
 * engine's operations and runs vitest.mutate.config.ts against every mutant (per-test coverage:
 * only the tests that reach a mutant run). A bench-like command, not part of CI; the score is
 * recorded in docs/benchmarks.md. Narrow it with `npm run mutate -- --mutate <glob>`.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  mutate: ['src/core/**/*.ts', 'src/storage/engine/ops/**/*.ts'],
  coverageAnalysis: 'perTest',
  // Static mutants (module-level constants) would rerun every test with a fresh module graph.
  ignoreStatic: true,
  // Results of unchanged mutants and tests are reused from the last run (reports/ is gitignored).
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // The machine's 2 cores are shared; one test process at a time.
  concurrency: 1,
  timeoutMS: 30_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  ignorePatterns: ['dist', 'clients', 'docs', 'artifacts', 'examples', 'reports', '.bench-data'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
}
