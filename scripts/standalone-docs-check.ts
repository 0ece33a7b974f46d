/**
 * Comments and docs stand alone: no tracked text file may send its reader to a document this
 * repository does not ship — a design or style guide by section or rule number, a numbered issue,
 * an internal RFC or spec, reference section numbers, or a sibling checkout. Say the rule where it
 * applies, or link a page under docs/. `npm run docs:standalone` (part of `npm run static`) prints
 * each offending line and exits 1.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** What points outside the repository. Public standards (`RFC 3339`, `RFC 8785 §3`) are fine. */
export const OUTSIDE_REFERENCES: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'design document', pattern: /\bDESIGN(?:\.md|\b)/ },
  { name: 'style guide', pattern: /\bSTYLE(?:\.md|\s+R\d|\b)/ },
  { name: 'numbered issue', pattern: /\b[Ii]ssues? #?\d+|\b[Ii]ssue "|#[\w-]*\bissue-\d/ },
  { name: 'section number', pattern: /(?<!\bRFC \d+ )§\s?\d/ },
  { name: 'internal RFC', pattern: /\bRFC\b(?!\s?\d)/ },
  {
    name: 'internal spec',
    pattern:
      /\b(?:the spec\b|spec's\b|(?:memory-family|remote-access|atomic-memory|atomic|remote) spec\b)/,
  },
  { name: 'internal spec', pattern: /^\s*(?:\*|\/\/|#)?\s*(?:spec|RFC)\s+"/ },
  { name: 'reference section', pattern: /\breference (?:facts|§)/ },
  { name: 'seed text', pattern: /\bseed (?:texts?|\d{3})\b/ },
  { name: 'sibling checkout', pattern: /(?<![./])\.\.\/shared\// },
]

/** Tracked files not scanned: generated output, lockfiles, binary or third-party data. */
const SKIPPED = [
  /^package-lock\.json$/,
  /^src\/contract\/(?:openapi-document|powercontext-types)\.ts$/,
  /^clients\/python\/powercontext_client\/_generated\.py$/,
  /^scripts\/standalone-docs-check\.ts$/,
  /^test\/repo\/standalone-docs\.test\.ts$/,
  /\.(?:png|jpe?g|gif|ico|woff2?|db|sqlite|gz|zip)$/,
]

/** The offending lines of one file's text, as `path:line: [kind] text`. */
export function findOutsideReferences(path: string, text: string): string[] {
  const found: string[] = []
  text.split('\n').forEach((line, i) => {
    for (const { name, pattern } of OUTSIDE_REFERENCES)
      if (pattern.test(line)) {
        found.push(`${path}:${i + 1}: [${name}] ${line.trim().slice(0, 160)}`)
        break
      }
  })
  return found
}

function trackedFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  return out.split('\0').filter((f) => f !== '' && !SKIPPED.some((re) => re.test(f)))
}

function main(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const found: string[] = []
  for (const file of trackedFiles(root)) {
    let text: string
    try {
      text = readFileSync(new URL(file, `file://${root}`), 'utf8')
    } catch {
      continue // listed by git but deleted in the work tree
    }
    found.push(...findOutsideReferences(file, text))
  }
  if (found.length === 0) return
  process.stderr.write(
    `${found.join('\n')}\n\n${found.length} line(s) point at documents outside this repository: ` +
      'state the rule where it applies, or link a page under docs/.\n',
  )
  process.exitCode = 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
