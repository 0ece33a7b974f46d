#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8'

const args = process.argv.slice(2)
// `powercontext mcp --server-url … [--token …]`, the form agent hosts start: the stdio proxy
// alone, without the rest of the CLI (docs/benchmarks.md, MCP). Anything else: the full CLI.
const mcp = args[0] === 'mcp' ? await import('../dist/cli/mcp-main.js') : undefined
const flags = mcp?.quickMcpFlags(args.slice(1))
if (mcp !== undefined && flags !== undefined) {
  const { PROCESS_IO } = await import('../dist/cli/cli-output.js')
  process.exitCode = await mcp.runMcpCommand(flags, PROCESS_IO)
} else {
  // A CLI process makes a few HTTP requests at most. fetch's HTTP parser is WebAssembly, and V8's
  // background compile of its optimised tier held every exit back by ≈ 0.3 s (more under load);
  // the baseline tier alone parses a handful of responses just as fast (docs/benchmarks.md, CLI).
  setFlagsFromString('--liftoff-only')
  const { main } = await import('../dist/cli/main.js')
  process.exitCode = await main(process.argv)
}
