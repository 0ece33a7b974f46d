import type { Command } from 'commander'

import type { PowerContextClient } from '../client/index.js'
import { createPowerContextClient, PowerContextClientError } from '../client/index.js'
import { PRODUCT_VERSION } from '../core/product-version.js'
import type { CliIo } from './cli-io.js'
import { EXIT_FAILURE, EXIT_OK, printError } from './cli-io.js'
import type { CheckLine, LocalStore } from './doctor-checks.js'
import { dataDirCheck, mcpCheck, modelsCheck } from './doctor-checks.js'
import { clientToken, remoteSettings } from './remote-settings.js'

/** Server checked when neither `--server-url` nor `POWERCONTEXT_CLIENT_SERVER_URL` is set. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8000'

/** Outcome of one doctor check; `skip` follows a failure that makes the check meaningless. */
export type CheckStatus = CheckLine['status']

/**
 * One line of the doctor report: `live`, `ready`, `auth`, `capabilities`, `mcp`, `models`, and
 * `data-dir` when a local store is checked.
 */
export type DoctorCheck = CheckLine

/** What `powercontext doctor --json` prints. */
export interface DoctorReport {
  readonly server_url: string
  readonly ok: boolean
  readonly checks: readonly DoctorCheck[]
}

/** True when two versions can talk: same major, and the same minor while the major is 0. */
export function versionsCompatible(a: string, b: string): boolean {
  const [aMajor, aMinor] = a.split('.')
  const [bMajor, bMinor] = b.split('.')
  return aMajor === bMajor && (aMajor !== '0' || aMinor === bMinor)
}

const describe = (e: unknown): string =>
  e instanceof PowerContextClientError
    ? `${e.code}: ${e.message}${e.requestId === null ? '' : ` (request ${e.requestId})`}`
    : String(e)

const unreachableReason = (e: PowerContextClientError): string =>
  e.code === 'timeout'
    ? `no answer within ${String(e.details?.['timeout_ms'])} ms`
    : String(e.details?.['reason'] ?? e.message)

/** What {@link runDoctor} checks besides the server's health endpoints. */
export interface DoctorTarget {
  readonly serverUrl: string
  readonly token: string | undefined
  /** The local data directory to check as well (`data-dir`), or undefined for none. */
  readonly store?: LocalStore | undefined
}

/**
 * Checks a server in order — liveness, readiness, authorization, capabilities and version, its
 * `/mcp` endpoint, its configured models — then the local data directory, and explains each
 * failure in one line. Checks that depend on a failed one are skipped; `skip` never fails the
 * report.
 */
export async function runDoctor(
  client: PowerContextClient,
  target: DoctorTarget,
): Promise<DoctorReport> {
  const { serverUrl } = target
  const tokenGiven = target.token !== undefined
  const checks: DoctorCheck[] = []
  const add = (name: string, status: CheckStatus, detail: string): void => {
    checks.push({ name, status, detail })
  }
  const report = async (): Promise<DoctorReport> => {
    if (target.store !== undefined) checks.push(await dataDirCheck(target.store))
    return { server_url: serverUrl, ok: checks.every((c) => c.status !== 'fail'), checks }
  }

  try {
    await client.live()
    add('live', 'pass', `server is up at ${serverUrl}`)
  } catch (e) {
    const unreachable =
      e instanceof PowerContextClientError &&
      (e.code === 'connection_failed' || e.code === 'timeout')
    add(
      'live',
      'fail',
      unreachable
        ? `server not reachable at ${serverUrl} (${unreachableReason(e)}); is \`powercontext server run\` running there?`
        : `${serverUrl} did not answer as a PowerContext server: ${describe(e)}`,
    )
    for (const name of ['ready', 'auth', 'capabilities', 'mcp', 'models'])
      add(name, 'skip', 'skipped: the liveness check failed')
    return report()
  }

  let readiness: Readonly<Record<string, string>> | undefined
  try {
    const r = await client.ready()
    readiness = r.checks
    const failing = Object.entries(r.checks).filter(([, v]) => v !== 'ready' && v !== 'ok')
    const list = (entries: [string, string][]): string =>
      entries.map(([k, v]) => `${k}=${v}`).join(', ')
    if (r.status === 'not_ready') add('ready', 'fail', `not ready: ${list(failing)}`)
    else if (r.status === 'degraded') add('ready', 'pass', `degraded but serving: ${list(failing)}`)
    else add('ready', 'pass', `ready (${list(Object.entries(r.checks))})`)
  } catch (e) {
    add('ready', 'fail', `readiness check failed: ${describe(e)}`)
  }

  let caps
  try {
    caps = await client.capabilities()
    add('auth', 'pass', tokenGiven ? 'token accepted' : 'no token required')
  } catch (e) {
    if (e instanceof PowerContextClientError && e.code === 'unauthorized')
      add(
        'auth',
        'fail',
        tokenGiven
          ? 'auth rejected: the server did not accept the token; check POWERCONTEXT_CLIENT_API_TOKEN (or --token)'
          : 'auth rejected: the server requires a token; set POWERCONTEXT_CLIENT_API_TOKEN (or pass --token)',
      )
    else {
      add('auth', 'skip', 'skipped: capabilities could not be read')
      add('capabilities', 'fail', `cannot read capabilities: ${describe(e)}`)
      checks.push(await mcpCheck(serverUrl, target.token))
      add('models', 'skip', 'skipped: capabilities could not be read')
      return report()
    }
    add('capabilities', 'skip', 'skipped: not authorized')
    checks.push(await mcpCheck(serverUrl, target.token))
    add('models', 'skip', 'skipped: not authorized')
    return report()
  }

  if (!versionsCompatible(caps.version, PRODUCT_VERSION))
    add(
      'capabilities',
      'fail',
      `version mismatch: server ${caps.version}, this CLI ${PRODUCT_VERSION}; upgrade one side`,
    )
  else
    add(
      'capabilities',
      'pass',
      `version ${caps.version}${caps.backend === undefined ? '' : `, backend ${caps.backend}`}, search modes ${caps.search_modes.join(', ')}`,
    )
  checks.push(await mcpCheck(serverUrl, target.token))
  const profile = caps.embedding_profile as { model?: unknown } | null | undefined
  checks.push(
    readiness === undefined
      ? { name: 'models', status: 'skip', detail: 'skipped: readiness could not be read' }
      : modelsCheck({
          readiness,
          embeddingModel: typeof profile?.model === 'string' ? profile.model : null,
          // A server of another version may lack either field: treat it as not configured.
          generationModel: caps.extraction?.model ?? null,
        }),
  )
  return report()
}

/** Checks an agent host (`doctor <host>`, in `agents/doctor-host-command.ts`). */
export type HostDoctor = (
  host: string,
  project: string | undefined,
  cmd: Command,
  io: CliIo,
  setExit: (code: number) => void,
) => Promise<void>

/** Registers `doctor`: checks a server and prints one line per check (exit 0 all pass, else 1). */
export function registerDoctorCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
  runHostDoctor?: HostDoctor,
  /** The agent hosts `runHostDoctor` knows (their ids, for the help text). */
  hostIds: readonly string[] = [],
): void {
  program
    .command('doctor')
    .description(
      `check a server: liveness, readiness, auth, capabilities and version (default ${DEFAULT_SERVER_URL}); with a host, also its MCP, hooks and scope`,
    )
    .argument(
      '[host]',
      `${hostIds.join(' | ')}: also check that agent host (docs/agents.md#set-up)`,
    )
    .option('--project <dir>', 'with a host: the project to check (default: the work tree here)')
    .action(async (host: string | undefined, o: { project?: string }, cmd: Command) => {
      if (host !== undefined && runHostDoctor !== undefined)
        return runHostDoctor(host, o.project, cmd, io, setExit)
      const json = cmd.optsWithGlobals<{ json?: boolean }>().json === true
      let remote
      try {
        remote = remoteSettings(cmd)
      } catch (err) {
        setExit(printError(io, err, json))
        return
      }
      const serverUrl = remote?.serverUrl ?? DEFAULT_SERVER_URL
      const token = clientToken(cmd)
      const client = createPowerContextClient({ baseUrl: serverUrl, token })
      const g = cmd.optsWithGlobals<{ dataDir?: string; database?: string }>()
      const report = await runDoctor(client, {
        serverUrl,
        token,
        store: {
          dataDir: g.dataDir,
          database: g.database !== undefined,
          remote: remote !== undefined,
        },
      })
      if (json) io.out(JSON.stringify(report))
      else
        for (const c of report.checks)
          io.out(`${{ pass: 'ok  ', fail: 'FAIL', skip: 'skip' }[c.status]} ${c.name}: ${c.detail}`)
      setExit(report.ok ? EXIT_OK : EXIT_FAILURE)
    })
}
