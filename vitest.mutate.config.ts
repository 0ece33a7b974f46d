/*
 * The tests `npm run mutate` (StrykerJS, stryker.config.mjs) runs against each mutant: the pure
 * core tests and the backend conformance suite on SQLite `:memory:` (the same rules as the file
 * backend, without its disk time). Not used by `npm test`.
 */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/core/**/*.test.ts', 'test/conformance/sqlite.test.ts'],
    testNamePattern: /^(?!sqlite \(file\))/,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
