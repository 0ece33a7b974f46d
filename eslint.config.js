import js from '@eslint/js'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import tseslint from 'typescript-eslint'

/** Layers that a lower layer must never import (core ← storage ← runtime ← surfaces). */
const SURFACES = ['http', 'mcp', 'cli']
const restrict = (group) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [{ group, message: 'imports flow core ← storage ← runtime ← surfaces' }],
    },
  ],
})
const layer = (dir) => [`**/${dir}/**`, `**/${dir}`, `**/${dir}/*.js`]
/** Database drivers and native search addons: only `src/storage/<db>/` may import them. */
const DRIVERS = ['better-sqlite3', 'mysql2', 'mysql2/*', 'sqlite-vec', 'hnswlib-node']

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'src/contract/**',
      '.stryker-tmp/**',
      'reports/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'Buffer',
          'URL',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'fetch',
          'AbortController',
          'TextEncoder',
          'TextDecoder',
        ].map((g) => [g, 'readonly']),
      ),
    },
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false } },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'no export *: export each name' },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: restrict([
      ...layer('storage'),
      ...layer('runtime'),
      ...SURFACES.flatMap(layer),
      'better-sqlite3',
      'mysql2',
      'mysql2/*',
    ]),
  },
  {
    files: ['src/storage/**/*.ts'],
    rules: restrict([...layer('runtime'), ...SURFACES.flatMap(layer)]),
  },
  // Inside storage: spi ← engine ← sql ← {sqlite, mysql}; only a dialect folder imports its driver.
  {
    files: ['src/storage/spi/**/*.ts'],
    rules: restrict([
      ...['runtime', 'engine', 'sql', 'sqlite', 'mysql'].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  {
    files: ['src/storage/engine/**/*.ts'],
    rules: restrict([
      ...['runtime', 'sql', 'sqlite', 'mysql'].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  {
    files: ['src/storage/sql/**/*.ts'],
    rules: restrict([
      ...['runtime', 'sqlite', 'mysql'].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  {
    files: ['src/storage/sqlite/**/*.ts'],
    rules: restrict([
      ...['runtime', 'mysql'].flatMap(layer),
      ...SURFACES.flatMap(layer),
      'mysql2',
      'mysql2/*',
    ]),
  },
  {
    files: ['src/storage/mysql/**/*.ts'],
    rules: restrict([
      ...['runtime', 'sqlite'].flatMap(layer),
      ...SURFACES.flatMap(layer),
      'better-sqlite3',
      'sqlite-vec',
      'hnswlib-node',
    ]),
  },
  {
    files: ['src/runtime/**/*.ts'],
    rules: restrict([...SURFACES.flatMap(layer), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  // wire (the one surface call path) ← surfaces; no surface imports another's internals: mcp/
  // never imports http/ or cli/; http/ imports mcp/ only in server-run.ts, the composition root
  // that mounts the MCP plugin (imports flow down only); cli/ composes them all.
  {
    files: ['src/wire/**/*.ts'],
    rules: restrict([...SURFACES.flatMap(layer), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: restrict(['better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/http/server-run.ts'],
    rules: restrict([...['mcp', 'cli'].flatMap(layer), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    files: ['src/http/server-run.ts'],
    rules: restrict([...layer('cli'), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: restrict([...['http', 'cli'].flatMap(layer), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    // The CLI starts light: --help, --version and --server-url commands load no driver or server, so
    // the CLI imports the runtime, the HTTP server, the stdio proxy and storage only with import().
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/runtime/memory-runtime.js',
                '**/http/**',
                '**/mcp/stdio-proxy.js',
                '**/mcp/mcp-plugin.js',
                ...['sqlite', 'mysql', 'engine', 'sql'].flatMap((d) => layer(`storage/${d}`)),
                'fastify',
                '@modelcontextprotocol/*',
                'pino',
              ],
              allowTypeImports: true,
              message: 'load it lazily (await import) so the CLI starts fast (docs/development.md)',
            },
          ],
        },
      ],
    },
  },
  {
    // The client imports only the generated contract (no runtime, no driver).
    files: ['src/client/**/*.ts'],
    rules: restrict([
      ...['core', 'storage', 'runtime', 'wire', 'http', 'mcp', 'cli'].flatMap(layer),
      'better-sqlite3',
      'mysql2',
      'mysql2/*',
      'sqlite-vec',
    ]),
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'harness/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
)
