#!/usr/bin/env node
// PowerContext's Codex hook (SessionStart, UserPromptSubmit, Stop, PreCompact): node: built-ins
// only, fails open; `--detach` hands the run to a background worker (integrations/shared/
// hook-entry.mjs). What each event does: integrations/shared/events.mjs and docs/agents.md.
import { fileURLToPath } from 'node:url'

import { hookEntry } from '../../shared/hook-entry.mjs'

await hookEntry(
  {
    host: 'codex',
    component: 'powercontext.codex',
    origin: 'codex',
    displayName: 'Codex',
    promptSourcePrefix: 'codex-user-prompt:',
    sessionKeys: ['session_id', 'conversation_id', 'thread_id'],
    turnKeys: ['turn_id', 'request_id'],
    turnMetaKey: 'turn_id',
  },
  fileURLToPath(import.meta.url),
)
