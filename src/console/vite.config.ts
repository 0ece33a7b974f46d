import { fileURLToPath } from 'node:url'

import { defineConfig } from 'vite'

/**
 * Builds the web console (src/console) into dist/console: one HTML page and hashed assets the
 * server serves at `/`. Nothing is loaded from elsewhere at run time (works offline).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsDir: 'assets',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
})
