#!/usr/bin/env node
// PowerContext's Claude Code hook (SessionStart, UserPromptSubmit, Stop, PreCompact): node: built-ins
// only, fails open; `--detach` hands the run to a background worker (integrations/shared/
// hook-entry.mjs). What each event does: integrations/shared/events.mjs and docs/agents.md.
import { fileURLToPath } from 'node:url'

import { hookEntry } from '../../shared/hook-entry.mjs'

await hookEntry(
  {
    host: 'claude-code',
    component: 'powercontext.claude_code',
    origin: 'claude-code',
    displayName: 'Claude Code',
    promptSourcePrefix: 'claude-code-user-prompt:',
    sessionKeys: ['session_id'],
    turnKeys: ['prompt_id', 'request_id'],
    turnMetaKey: 'prompt_id',
  },
  fileURLToPath(import.meta.url),
)
