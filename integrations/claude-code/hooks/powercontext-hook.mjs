#!/usr/bin/env node
// PowerContext's Claude Code hook (SessionStart, UserPromptSubmit, Stop, PreCompact): node: built-ins
// only, fails open; `--detach` hands the run to a background worker (integrations/shared/
// hook-entry.mjs). What each event does: integrations/shared/events.mjs and docs/agents.md;
// this host's row: integrations/shared/hosts.mjs.
import { fileURLToPath } from 'node:url'

import { hookEntry } from '../../shared/hook-entry.mjs'
import { hostProfile } from '../../shared/hosts.mjs'

await hookEntry(hostProfile('claude-code'), fileURLToPath(import.meta.url))
