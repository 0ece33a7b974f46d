/*
 * The tests `npm run mutate` (StrykerJS, stryker.config.mjs) runs against each mutant: the pure
 * core tests and the backend conformance suite on SQLite `:memory:` (the same rules as the file
 * backend, without its disk time). Not used by `npm test`. `POWERCONTEXT_MUTATE_TESTS=core` keeps
 * only test/core: a run in minutes whose score is a lower bound of the full set's (every mutant it
 * kills, the full set kills too); docs/benchmarks.md "Mutation testing" uses both.
 */
import { defineConfig } from 'vitest/config'

const coreOnly = process.env['POWERCONTEXT_MUTATE_TESTS'] === 'core'

export default defineConfig({
  test: {
    include: coreOnly
      ? ['test/core/**/*.test.ts']
      : ['test/core/**/*.test.ts', 'test/conformance/sqlite.test.ts'],
    testNamePattern: /^(?!sqlite \(file\))/,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
