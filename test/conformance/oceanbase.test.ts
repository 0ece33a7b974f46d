/*
 * The conformance suite against a live OceanBase (≥ 4.3.5, MySQL-mode tenant) when
 * POWERCONTEXT_TEST_OCEANBASE_URL is set (`mysql://user:pass@host:port/db`; the user must be able
 * to create and drop databases). Then a connection failure fails the suite; unset, it is skipped.
 */
import { it } from 'vitest'

import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

const url = process.env['POWERCONTEXT_TEST_OCEANBASE_URL']

if (url === undefined || url === '') {
  it('oceanbase conformance', (ctx) => ctx.skip('POWERCONTEXT_TEST_OCEANBASE_URL is not set'))
} else {
  describeMemoryBackend(mysqlFamilyOptions('oceanbase', url))
}
