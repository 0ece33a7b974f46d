#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8'

// A CLI process makes a few HTTP requests at most. fetch's HTTP parser is WebAssembly, and V8's
// background compile of its optimised tier held every exit back by ≈ 0.3 s (more under load);
// the baseline tier alone parses a handful of responses just as fast (docs/benchmarks.md, CLI).
setFlagsFromString('--liftoff-only')

const { main } = await import('../dist/cli/main.js')
process.exitCode = await main(process.argv)
