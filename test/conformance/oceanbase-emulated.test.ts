/*
 * The conformance suite through the adapter's OceanBase dialect, on MariaDB with the few
 * OceanBase-only constructs rewritten (test/support/oceanbase-emulation.ts): vector, hybrid and
 * profile tests run here. It proves the OceanBase code path, not OceanBase itself.
 */
import { MARIADB_TEST_URL } from '../support/mysql-databases.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

describeMemoryBackend(mysqlFamilyOptions('oceanbase (emulated on MariaDB)', MARIADB_TEST_URL))
