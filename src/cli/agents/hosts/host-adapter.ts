/**
 * What `setup` and `doctor` need to know of one agent host, as one object per host in a folder
 * of its own (`hosts/<host>/adapter.ts`), registered in `HOST_ADAPTERS` (`hosts/index.ts`). The
 * shared code (`agent-setup.ts`, `agent-doctor.ts`, `extract-setup.ts`, the commands) reads the
 * adapter and never asks which host it has. The hook scripts' side of a host (its payload's
 * session and turn fields, the environment names) is its row of `integrations/shared/hosts.mjs`,
 * which the adapter carries as `profile`.
 */
import type { HostProfile } from '../../../../integrations/shared/hosts.mjs'
import type { FoundFile } from '../config-files.js'
import type { HookTable } from '../hook-merge.js'

/** The files of one host installation. */
export interface HostFiles {
  readonly host: string
  readonly level: 'user' | 'project'
  /** Where the hooks go. */
  readonly hooksFile: string
  /** Where the MCP entry goes. */
  readonly mcpFile: string
  /** The plugin directory whose hook scripts the commands run (`integrations/<host>/`). */
  readonly pluginDir: string
  /** Where the project-memory skill goes. */
  readonly skillFile: string
}

/** What happened to one file. */
export interface FileChange {
  readonly path: string
  readonly part: 'hooks' | 'mcp' | 'skill' | 'git-hook' | 'git-exclude' | 'trust'
  readonly status: 'created' | 'updated' | 'unchanged'
  /** One line on what changed (or why nothing did). */
  readonly detail: string
  /** Copy of the previous content, when the file existed and changed (not with dry run). */
  readonly backup: string | null
}

/** The parts of a `setup` request an adapter reads. */
export interface HostSetup {
  /** A project directory, or undefined for the user's own settings. */
  readonly project: string | undefined
  readonly serverUrl: string
  /** True when a token is in use: the MCP entries then send `POWERCONTEXT_CLIENT_API_TOKEN`. */
  readonly withToken: boolean
  /** Let the agent call our write tools without the host asking. */
  readonly allowWrites: boolean
  readonly dryRun: boolean
  readonly env: NodeJS.ProcessEnv
  /** The project's scope the MCP entry names (`X-PowerContext-Scope`), none at user level. */
  readonly scopeId: string | undefined
}

/** An edit of a settings file: the new text (null: nothing to change) and what it does. */
export interface SettingsEdit {
  readonly text: string | null
  readonly detail: string
}

/** Our MCP entry as doctor reads it, whatever the host calls its fields. */
export interface McpEntryView {
  /** Where it points (the server's `/mcp`). */
  readonly url: unknown
  /** The headers it sends (`X-PowerContext-Scope` for a project). */
  readonly headers: unknown
}

/** One line of doctor's report. */
export interface HostCheckResult {
  readonly status: 'pass' | 'fail' | 'skip'
  readonly detail: string
}

/** A doctor check only one host has (run after the hooks check). */
export interface HostCheck {
  readonly name: string
  /** `installedAt`: the first level (project, then user) whose hooks file holds our hooks. */
  run(
    levels: readonly HostFiles[],
    project: string,
    installedAt: HostFiles | undefined,
  ): Promise<HostCheckResult>
}

/** One agent host. */
export interface HostAdapter {
  /** The host's row of `integrations/shared/hosts.mjs` (its id and display name included). */
  readonly profile: HostProfile
  /** The files of a user (`project` undefined) or project installation, per the host's docs. */
  files(project: string | undefined, env: NodeJS.ProcessEnv): HostFiles
  /**
   * The host's CLI when the server can extract with it (`--extract-with <host id>`, a generation
   * provider of the same name in `runtime/host-providers.ts`); `setup` picks it when on PATH.
   */
  readonly extractionCli?: string
  /**
   * The hooks `setup` installs; `render` gives the plugin's own table with `env` set in front of
   * each command. Default: `render(env)`.
   */
  wantedHooks?(
    o: HostSetup,
    env: Readonly<Record<string, string>>,
    render: (env: Readonly<Record<string, string>>) => HookTable,
  ): HookTable
  /** More edits of the merged hooks settings (e.g. tool permissions); `what` joins the report. */
  editHookSettings?(
    settings: Record<string, unknown>,
    o: HostSetup,
  ): { settings: Record<string, unknown>; what: string[] }
  /** Our MCP entry in the host's config file, or undefined (a file that does not parse throws). */
  readMcpEntry(file: FoundFile): McpEntryView | undefined
  /** Puts our MCP entry into the host's config file. */
  writeMcpEntry(file: FoundFile, o: HostSetup): SettingsEdit
  /** Files of a project installation that name this machine, for `.git/info/exclude`. */
  machineFiles(files: HostFiles): string[]
  /** Why the host will not run hooks configured at `files` (a config turning them off), if so. */
  hooksOff?(files: HostFiles): Promise<string | undefined>
  /** What `setup` does last (e.g. records the host's trust in our hooks), and warnings. */
  afterSetup?(
    o: HostSetup,
    files: HostFiles,
  ): Promise<{ changes: FileChange[]; warnings: string[] }>
  /** Doctor checks of this host alone. */
  readonly checks?: readonly HostCheck[]
}
