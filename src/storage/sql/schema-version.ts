import { PowerContextError } from '../../core/errors.js'

/**
 * The one refusal of a database written by a newer PowerContext, the same on every backend
 * (`details.reason` `schema_newer`): nothing is migrated or written.
 */
export function schemaNewerError(stored: number, supported: number): PowerContextError {
  return new PowerContextError(
    'storage_unavailable',
    `database schema ${stored} is newer than this version of PowerContext (${supported}); ` +
      'upgrade PowerContext to open it',
    { reason: 'schema_newer', stored_schema: stored, supported_schema: supported },
  )
}
