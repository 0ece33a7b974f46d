/*
 * The conformance suite through the adapter's OceanBase dialect, on MariaDB with the few
 * OceanBase-only constructs rewritten (test/support/oceanbase-emulation.ts): vector, hybrid and
 * profile tests run here. It proves the OceanBase code path, not OceanBase itself. Skipped with
 * the reason when no MariaDB answers (test/support/mysql-databases.ts).
 */
import { it } from 'vitest'

import { MARIADB_SKIP_REASON, MARIADB_TEST_URL } from '../support/mysql-databases.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

if (MARIADB_SKIP_REASON === undefined)
  describeMemoryBackend(mysqlFamilyOptions('oceanbase (emulated on MariaDB)', MARIADB_TEST_URL))
else it('oceanbase (emulated on MariaDB) conformance', (ctx) => ctx.skip(MARIADB_SKIP_REASON))
