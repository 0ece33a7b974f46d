export type { AnnSettings } from './sqlite-ann-types.js'
export type { SqliteBackendOptions } from './sqlite-memory-backend.js'
export { openSqliteBackend, SqliteMemoryBackend } from './sqlite-memory-backend.js'
