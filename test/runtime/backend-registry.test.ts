/**
 * The database backend registry: a URL's scheme chooses the backend that opens it, and a scheme
 * no backend opens is a typed `invalid_request` naming the supported schemes — never a connection
 * attempt through another backend's driver.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { describe, expect, it, vi } from 'vitest'

import { PowerContextError } from '../../src/core/errors.js'
import {
  DATABASE_BACKENDS,
  databaseBackendFor,
  supportedDatabaseSchemes,
} from '../../src/runtime/backend-registry.js'
import { MemoryRuntime } from '../../src/runtime/memory-runtime.js'
import { openReferenceSession } from '../../src/runtime/reference-upgrade.js'
import { runCli } from '../support/cli-run.js'

const SECRET = 's3cr3t-pw'
const POSTGRES = `postgres://app:${SECRET}@127.0.0.1:5432/pc`

/** The error `fn` rejects with, checked to be an `invalid_request` on `database`. */
async function rejection(fn: () => Promise<unknown>): Promise<PowerContextError> {
  const err = await fn().then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(PowerContextError)
  const e = err as PowerContextError
  expect(e.code).toBe('invalid_request')
  return e
}

describe('backend registry', () => {
  it('has one row per scheme, every scheme lower case', () => {
    const schemes = DATABASE_BACKENDS.flatMap((b) => b.schemes)
    expect(new Set(schemes).size).toBe(schemes.length)
    for (const s of schemes) expect(s).toMatch(/^[a-z][a-z0-9+.-]*$/)
    expect(supportedDatabaseSchemes()).toEqual(['mysql://'])
  })

  it('chooses the MySQL-protocol backend for mysql:// in any case', () => {
    expect(databaseBackendFor('mysql://app@db.example/pc').name).toBe('mysql')
    expect(databaseBackendFor('MySQL://app@db.example/pc').name).toBe('mysql')
  })

  it("hands the URL to the chosen backend's own opener", async () => {
    // The MySQL adapter's URL check answers before any connection: the opener is MySQL's.
    const e = await rejection(() =>
      databaseBackendFor('mysql://app@db.example/').open({ url: 'mysql://app@db.example/' }),
    )
    expect(e.message).toMatch(/database name/)
  })

  it('refuses a scheme no backend opens, naming the supported ones, never the password', () => {
    for (const url of [POSTGRES, 'sqlite:///tmp/x.db', '/var/lib/pc.db', 'mysql:app@h/pc']) {
      let err: unknown
      try {
        databaseBackendFor(url)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(PowerContextError)
      const e = err as PowerContextError
      expect(e.code).toBe('invalid_request')
      expect(e.details).toEqual({ errors: [{ field: 'database', message: expect.any(String) }] })
      expect(e.message).toMatch(/supported: mysql:\/\//)
      expect(e.message).not.toContain(SECRET)
    }
    expect(() => databaseBackendFor(POSTGRES)).toThrow(/no backend opens postgres:\/\/ URLs/)
  })
})

describe('a postgres:// URL', () => {
  it('is refused by the runtime before any driver is asked to connect', async () => {
    const e = await rejection(() => MemoryRuntime.open({ databaseUrl: POSTGRES }))
    expect(e.message).toBe('database: no backend opens postgres:// URLs; supported: mysql://')
  })

  it('is refused as an upgrade source, while a path stays a SQLite file', async () => {
    const e = await rejection(() => openReferenceSession(POSTGRES, undefined))
    expect(e.message).toMatch(/no backend opens postgres:\/\//)
  })

  it('is a usage error (exit 2) of --database, --to-database and server run', async () => {
    for (const args of [
      ['--database', POSTGRES, 'list', '--scope', 'reg:pg'],
      ['admin', 'salvage', '--to-database', POSTGRES],
      ['server', 'run', '--database', POSTGRES, '--port', '0'],
    ]) {
      const r = await runCli(...args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.err).toMatch(/no backend opens postgres:\/\/ URLs; supported: mysql:\/\//)
      expect(r.err).not.toContain(SECRET)
    }
  })

  it('is a usage error (exit 2) in POWERCONTEXT_SERVER_DATABASE_URL, before anything is read', async () => {
    const home = mkdtempSync(join(tmpdir(), 'pc-backend-registry-'))
    try {
      vi.stubEnv('POWERCONTEXT_HOME', home)
      vi.stubEnv('POWERCONTEXT_SERVER_DATABASE_URL', POSTGRES)
      const r = await runCli('server', 'run', '--port', '0')
      expect(r.code).toBe(2)
      expect(r.err).toMatch(/^error: POWERCONTEXT_SERVER_DATABASE_URL: no backend opens postgres:/m)
      expect(r.err).not.toContain(SECRET)
    } finally {
      vi.unstubAllEnvs()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
