/*
 * The conformance suite against the machine's MariaDB (shared/NOTES.md), in a fresh database;
 * skipped with the reason when no MariaDB answers, unless CI or POWERCONTEXT_TEST_MARIADB_URL
 * require it (test/support/mysql-databases.ts).
 */
import { it } from 'vitest'

import { MARIADB_SKIP_REASON, MARIADB_TEST_URL } from '../support/mysql-databases.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

if (MARIADB_SKIP_REASON === undefined)
  describeMemoryBackend(mysqlFamilyOptions('mariadb', MARIADB_TEST_URL))
else it('mariadb conformance', (ctx) => ctx.skip(MARIADB_SKIP_REASON))
