#!/usr/bin/env node
// PowerContext's Claude Code hook (SessionStart, UserPromptSubmit, Stop, PreCompact): node: built-ins
// only, fails open. What each event does: integrations/shared/events.mjs and docs/agents.md.
import { runHook } from '../../shared/run-hook.mjs'

await runHook({
  host: 'claude-code',
  component: 'powercontext.claude_code',
  origin: 'claude-code',
  displayName: 'Claude Code',
  promptSourcePrefix: 'claude-code-user-prompt:',
  sessionKeys: ['session_id'],
  turnKeys: ['prompt_id', 'request_id'],
  turnMetaKey: 'prompt_id',
})
