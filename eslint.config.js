import js from '@eslint/js'
import simpleImportSort from 'eslint-plugin-simple-import-sort'
import tseslint from 'typescript-eslint'

/** Layers that a lower layer must never import (STYLE R1: core ← storage ← runtime ← surfaces). */
const SURFACES = ['http', 'mcp', 'cli']
const restrict = (group) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: [{ group, message: 'STYLE R1: imports flow core ← storage ← runtime ← surfaces' }],
    },
  ],
})
const layer = (dir) => [`**/${dir}/**`, `**/${dir}`, `**/${dir}/*.js`]

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'src/contract/**'] },
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
    files: ['**/*.ts', '**/*.tsx'],
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
        { selector: 'ExportAllDeclaration', message: 'STYLE R16: no export *' },
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
  {
    files: ['src/storage/*.ts'],
    rules: restrict([
      ...layer('runtime'),
      ...SURFACES.flatMap(layer),
      'better-sqlite3',
      'mysql2',
      'mysql2/*',
    ]),
  },
  {
    files: ['src/runtime/**/*.ts'],
    rules: restrict([...SURFACES.flatMap(layer), 'better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    files: ['src/cli/**/*.ts', 'src/http/**/*.ts', 'src/mcp/**/*.ts'],
    rules: restrict(['better-sqlite3', 'mysql2', 'mysql2/*']),
  },
  {
    // STYLE R16: the client imports only the generated contract (no runtime, no driver).
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
    // The web console is a browser surface: it reaches the server only through the client.
    files: ['src/console/**/*.ts', 'src/console/**/*.tsx'],
    rules: restrict([
      ...['core', 'storage', 'runtime', 'wire', 'http', 'mcp', 'cli'].flatMap(layer),
      'node:*',
      'better-sqlite3',
      'mysql2',
      'mysql2/*',
      'sqlite-vec',
    ]),
  },
  {
    files: ['src/console/vite.config.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
)
