import js from '@eslint/js'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import tseslint from 'typescript-eslint'

/** Layers that a lower layer must never import: core ← storage ← runtime ← wire ← surfaces. */
const SURFACES = ['http', 'mcp', 'cli']
const restrict = (group, more = []) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          group,
          message: 'imports flow core ← storage ← runtime ← surfaces (docs/development.md)',
        },
        ...more,
      ],
    },
  ],
})
const layer = (dir) => [`**/${dir}/**`, `**/${dir}`, `**/${dir}/*.js`]
/**
 * Storage internals: above storage (runtime, wire and the surfaces), code reaches storage through
 * the SPI (`storage/spi/`), a dialect's entry (`storage/<db>/index.ts`) or the engine's entry
 * (`storage/engine/index.ts`), never a file of the shared engine or SQL layer.
 */
const STORAGE_INTERNALS = {
  regex: String.raw`(^|/)storage/(sql/|engine/(?!index\.js$))`,
  message: 'use the SPI (storage/spi/) or storage/engine/index.ts (docs/development.md, Layering)',
}
/** No `export *`: every re-export names what it exports. */
const NO_EXPORT_ALL = { selector: 'ExportAllDeclaration', message: 'no export *: name each export' }
/** The same boundary for `await import(…)`, which `no-restricted-imports` does not see. */
const NO_LAZY_STORAGE_INTERNALS = {
  // esquery's regex literal cannot hold `/`: `[^a-z]` stands for the separator.
  selector:
    'ImportExpression > Literal[value=/storage[^a-z](sql[^a-z]|engine[^a-z](?!index[.]js$))/]',
  message: STORAGE_INTERNALS.message,
}
/** Agent-host integrations ship on their own; the one file of core that reads them is listed below. */
const INTEGRATIONS = ['**/integrations/**']
/** The secret rule table and its secretlint driver (the exception for `core/secret-rules.ts`). */
const OTHER_INTEGRATIONS = {
  regex: String.raw`(^|/)integrations/(?!shared/secret-(rules|scanner)\.mjs$)`,
  message: 'core imports nothing of integrations/ but the secret rule table (docs/development.md)',
}
/**
 * The SQL backends: each adapter folder `src/storage/<db>/` with the database drivers and native
 * search addons only it may import. A new backend is one row here (and one in the runtime's
 * `DATABASE_BACKENDS`): every rule below is derived from it.
 */
const ADAPTERS = {
  sqlite: ['better-sqlite3', 'sqlite-vec', 'hnswlib-node'],
  mysql: ['mysql2', 'mysql2/*'],
}
const ADAPTER_DIRS = Object.keys(ADAPTERS)
/** Every driver and native addon: only its own `src/storage/<db>/` may import one. */
const DRIVERS = Object.values(ADAPTERS).flat()
/** What adapter folder `db` may not import: the other adapters and their drivers. */
const otherAdapters = (db) =>
  Object.entries(ADAPTERS)
    .filter(([other]) => other !== db)
    .flatMap(([other, drivers]) => [...layer(other), ...drivers])

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
      'no-restricted-syntax': ['error', NO_EXPORT_ALL],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: restrict([
      ...layer('storage'),
      ...layer('runtime'),
      ...SURFACES.flatMap(layer),
      ...INTEGRATIONS,
      ...DRIVERS,
    ]),
  },
  // The one exception to core ← integrations: the secret rule table lives in
  // integrations/shared/secret-rules.mjs (and its secretlint driver beside it), because the hook
  // scripts ship in the plugin folder and cannot import src/; core/secret-rules.ts is the server's
  // typed entry to that single source of truth (docs/development.md, Layering).
  {
    files: ['src/core/secret-rules.ts'],
    rules: restrict(
      [...layer('storage'), ...layer('runtime'), ...SURFACES.flatMap(layer), ...DRIVERS],
      [OTHER_INTEGRATIONS],
    ),
  },
  {
    files: ['src/storage/**/*.ts'],
    rules: restrict([...layer('runtime'), ...SURFACES.flatMap(layer)]),
  },
  // Inside storage: spi ← engine ← sql ← adapters; only an adapter folder imports its drivers.
  {
    files: ['src/storage/spi/**/*.ts'],
    rules: restrict([
      ...['runtime', 'engine', 'sql', ...ADAPTER_DIRS].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  {
    files: ['src/storage/engine/**/*.ts'],
    rules: restrict([
      ...['runtime', 'sql', ...ADAPTER_DIRS].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  {
    files: ['src/storage/sql/**/*.ts'],
    rules: restrict([
      ...['runtime', ...ADAPTER_DIRS].flatMap(layer),
      ...SURFACES.flatMap(layer),
      ...DRIVERS,
    ]),
  },
  ...ADAPTER_DIRS.map((db) => ({
    files: [`src/storage/${db}/**/*.ts`],
    rules: restrict([...layer('runtime'), ...otherAdapters(db), ...SURFACES.flatMap(layer)]),
  })),
  {
    files: ['src/runtime/**/*.ts'],
    rules: restrict([...SURFACES.flatMap(layer), ...DRIVERS], [STORAGE_INTERNALS]),
  },
  // wire (the one surface call path) ← surfaces; no surface imports another's internals: mcp/
  // never imports http/ or cli/; http/ imports mcp/ only in server-run.ts, the composition root
  // that mounts the MCP plugin (imports flow down only); cli/ composes them all.
  {
    files: ['src/wire/**/*.ts'],
    rules: restrict([...SURFACES.flatMap(layer), ...DRIVERS], [STORAGE_INTERNALS]),
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: restrict([...DRIVERS], [STORAGE_INTERNALS]),
  },
  {
    files: ['src/http/**/*.ts'],
    ignores: ['src/http/server-run.ts'],
    rules: restrict([...['mcp', 'cli'].flatMap(layer), ...DRIVERS], [STORAGE_INTERNALS]),
  },
  {
    files: ['src/http/server-run.ts'],
    rules: restrict([...layer('cli'), ...DRIVERS], [STORAGE_INTERNALS]),
  },
  {
    files: ['src/mcp/**/*.ts'],
    rules: restrict([...['http', 'cli'].flatMap(layer), ...DRIVERS], [STORAGE_INTERNALS]),
  },
  {
    files: ['src/{runtime,wire,cli,http,mcp}/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_EXPORT_ALL, NO_LAZY_STORAGE_INTERNALS] },
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
                ...[...ADAPTER_DIRS, 'engine', 'sql'].flatMap((d) => layer(`storage/${d}`)),
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
      ...DRIVERS,
    ]),
  },
  {
    // Files stay small and named by role: at most 400 lines in src (generated src/contract aside).
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'harness/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
)
