#!/usr/bin/env node
// PowerContext's Codex hook (SessionStart, UserPromptSubmit, Stop, PreCompact): node: built-ins
// only, fails open. What each event does: integrations/shared/events.mjs and docs/agents.md.
import { runHook } from '../../shared/run-hook.mjs'

await runHook({
  host: 'codex',
  component: 'powercontext.codex',
  origin: 'codex',
  displayName: 'Codex',
  promptSourcePrefix: 'codex-user-prompt:',
  sessionKeys: ['session_id', 'conversation_id', 'thread_id'],
  turnKeys: ['turn_id', 'request_id'],
  turnMetaKey: 'turn_id',
})
