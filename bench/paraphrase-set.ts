/**
 * The paraphrase set of `bench:paraphrase`: what a user types to a coding agent, the memory a model
 * writes from it — `topic`: worded as the proposing prompt asks (topic in plain words first),
 * `bare`: the statement as the user made it, as a model without that rule tends to write it — and
 * questions a later session asks in other words. Written by hand for this bench; the questions
 * were written from the prompt, not from either memory text.
 */
export interface ParaphraseCase {
  readonly prompt: string
  readonly topic: string
  readonly bare: string
  readonly questions: readonly string[]
}

export const PARAPHRASE_SET: readonly ParaphraseCase[] = [
  {
    prompt: 'Use pnpm, not npm, in this repo.',
    topic: 'Package manager: pnpm, not npm - the lockfile is pnpm-lock.yaml.',
    bare: 'Use pnpm, not npm, in this repository.',
    questions: ['which package manager should I use?', 'is npm ok for installing packages here?'],
  },
  {
    prompt: "Never edit anything under site/, it's generated.",
    topic: 'Generated website folder: never edit files under site/ by hand; it is generated.',
    bare: 'Never edit files under site/.',
    questions: ['can I change the generated website files directly?', 'which folder is generated?'],
  },
  {
    prompt: 'For doc-only changes just run make docs-test.',
    topic: 'Documentation changes: for doc-only changes run make docs-test, not the full suite.',
    bare: 'For doc-only changes, run make docs-test.',
    questions: [
      'what tests do I run when I only touch documentation?',
      'how do I check a change to the docs?',
    ],
  },
  {
    prompt: 'Commit messages in English, imperative mood, under 72 chars.',
    topic: 'Commit message style: English, imperative mood, subject under 72 characters.',
    bare: 'Write commits in English, imperative, under 72 chars.',
    questions: [
      'how should I write commit messages?',
      'what is the style for a git commit subject?',
    ],
  },
  {
    prompt: 'We deploy to eu-north-1 now, not eu-west-1.',
    topic: 'Deploy region: production deploys to AWS region eu-north-1, no longer eu-west-1.',
    bare: 'We deploy to eu-north-1 now, not eu-west-1.',
    questions: ['which AWS region is production in?', 'where do we deploy?'],
  },
  {
    prompt: "Tests use vitest; don't add jest.",
    topic: 'Test runner: vitest; do not add jest.',
    bare: "Use vitest; don't add jest.",
    questions: ['what test framework does the project use?', 'which test runner should I pick?'],
  },
  {
    prompt: 'Format with prettier, no semicolons, single quotes.',
    topic: 'Code formatting: prettier with no semicolons and single quotes.',
    bare: 'Prettier, no semicolons, single quotes.',
    questions: ['what formatter and code style do we use?', 'how is the code formatted?'],
  },
  {
    prompt: 'Node 20 is the minimum, drop Node 18.',
    topic: 'Node.js version: Node 20 is the minimum supported version; Node 18 is dropped.',
    bare: 'Node 20 minimum, drop 18.',
    questions: ['which Node.js version do we support?', 'what is the minimum version of node?'],
  },
  {
    prompt: 'Never call the network in unit tests.',
    topic: 'Network access in unit tests: unit tests must never make network calls.',
    bare: 'Never call the network in unit tests.',
    questions: ['can tests hit external HTTP APIs?', 'are internet requests allowed in tests?'],
  },
  {
    prompt: 'Prod runs on Postgres 16.',
    topic: 'Production database: PostgreSQL 16 (Postgres).',
    bare: 'Prod runs on Postgres 16.',
    questions: ['what database do we use in production?', 'which postgres version is live?'],
  },
  {
    prompt: 'Name branches feat/<ticket>-short-desc.',
    topic: 'Git branch naming: feat/<ticket>-short-description.',
    bare: 'Name branches feat/<ticket>-short-desc.',
    questions: ['how should I name my git branch?', 'what is the branch naming convention?'],
  },
  {
    prompt: 'Keep PRs under 400 lines.',
    topic: 'Pull request size: keep pull requests (PRs) under 400 changed lines.',
    bare: 'Keep PRs under 400 lines.',
    questions: ['how big can a pull request be?', 'what is the maximum size of a PR?'],
  },
  {
    prompt: 'Logs go to Loki via promtail.',
    topic: 'Logging: application logs ship to Loki through promtail.',
    bare: 'Logs go to Loki via promtail.',
    questions: ['where can I find the application logs?', 'what logging stack do we use?'],
  },
  {
    prompt: 'Secrets live in 1Password, never commit .env files.',
    topic: 'Secrets and credentials storage: they live in 1Password; never commit .env files.',
    bare: 'Secrets in 1Password, never commit .env.',
    questions: ['where are API keys and credentials stored?', 'can I commit the env file?'],
  },
  {
    prompt: 'Put risky changes behind an Unleash flag.',
    topic: 'Feature flags: risky changes go behind an Unleash feature flag.',
    bare: 'Put risky changes behind an Unleash flag.',
    questions: ['how do we toggle features on and off?', 'what do we use for feature flags?'],
  },
  {
    prompt: 'We only release on Tuesdays.',
    topic: 'Release schedule: releases go out on Tuesdays only.',
    bare: 'We only release on Tuesdays.',
    questions: ['when do we ship releases?', 'which day of the week is release day?'],
  },
  {
    prompt: 'Answer me in French from now on.',
    topic: 'Reply language: answer the user in French.',
    bare: 'Answer in French.',
    questions: ['what language should replies be in?', 'which language does the user want?'],
  },
  {
    prompt: 'Use pytest fixtures instead of setUp methods.',
    topic: 'Python test style: use pytest fixtures, not unittest setUp methods.',
    bare: 'Use pytest fixtures instead of setUp methods.',
    questions: ['how should Python tests share setup code?', 'unittest or pytest style in tests?'],
  },
  {
    prompt: 'API errors must return {error: {code, message}}.',
    topic: 'HTTP API error format: every error response returns {error: {code, message}}.',
    bare: 'API errors return {error: {code, message}}.',
    questions: [
      'what does an error response look like?',
      'what is the error format of the REST API?',
    ],
  },
  {
    prompt: 'CI is GitHub Actions on ubuntu-24.04 runners.',
    topic: 'Continuous integration (CI): GitHub Actions on ubuntu-24.04 runners.',
    bare: 'CI: GitHub Actions, ubuntu-24.04.',
    questions: ['where do the CI builds run?', 'which continuous integration service do we use?'],
  },
]
