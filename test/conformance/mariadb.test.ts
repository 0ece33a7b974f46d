/* The conformance suite against the machine's MariaDB (shared/NOTES.md), in a fresh database. */
import { MARIADB_TEST_URL } from '../support/mysql-databases.js'
import { describeMemoryBackend } from './memory-backend.case.js'
import { mysqlFamilyOptions } from './mysql-family.case.js'

describeMemoryBackend(mysqlFamilyOptions('mariadb', MARIADB_TEST_URL))
