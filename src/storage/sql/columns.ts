/**
 * Select lists of the logical tables (docs/storage.md), aliased to the row interfaces' field names so
 * rows map without copying. Plain SQL common to every adapter: the table and column names are the
 * same on SQLite and the MySQL family.
 */
export const MEMORY_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, current_version AS currentVersion,
  state, state_version AS stateVersion, merged_into AS mergedInto, kind, created_at AS createdAt,
  updated_at AS updatedAt`

export const VERSION_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, version,
  previous_version AS previousVersion, kind, text, sources_json AS sourcesJson,
  artifacts_json AS artifactsJson, observed_at AS observedAt, content_hash AS contentHash,
  created_at AS createdAt, operation, operation_id AS operationId, reason`

export const HEAD_COLUMNS = `memory_id AS memoryId, scope_id AS scopeId, version, kind,
  content_hash AS contentHash, searchable_text AS searchableText`

export const CHANGE_COLUMNS = `scope_id AS scopeId, seq, op, memory_id AS memoryId,
  from_revision AS fromRevision, to_revision AS toRevision, from_state AS fromState,
  to_state AS toState, reason, operation_id AS operationId, at`

export const SOURCE_COLUMNS = `scope_id AS scopeId, source_type AS sourceType, source_id AS sourceId,
  position, payload_hash AS payloadHash, payload, created_at AS createdAt`

/** {@link SOURCE_COLUMNS} with the payload read as bytes (`asBytes` of the dialect). */
export const sourceBytesColumns = (asBytes: (column: string) => string): string =>
  SOURCE_COLUMNS.replace(/\bpayload,/, `${asBytes('payload')} AS payload,`)

export const MERGE_COLUMNS = `merge_id AS mergeId, scope_id AS scopeId, result_memory_id AS resultId, state,
  created_at AS createdAt, operation_id AS operationId, undone_at AS undoneAt,
  undone_operation_id AS undoneOperationId`

export const CURSOR_COLUMNS = `scope_id AS scopeId, position, generation,
  isolate_through AS isolateThrough, updated_at AS updatedAt`

export const FAILURE_COLUMNS = `scope_id AS scopeId, position, source_id AS sourceId, attempts,
  error_code AS errorCode, error_message AS errorMessage, state, skip_seq AS skipSeq,
  first_failed_at AS firstFailedAt, last_failed_at AS lastFailedAt`

export const RECORD_COLUMNS = `record_id AS recordId, scope_id AS scopeId, from_position AS fromPosition,
  to_position AS toPosition, mode, model, prompt_version AS promptVersion,
  operation_id AS operationId, created_at AS createdAt, details_json AS detailsJson`
