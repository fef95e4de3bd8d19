// Runs every package's tests one package at a time (limit tests measure time, so they
// must not fight over the two cores), then the published packages as users install them
// (scripts/pack-install), the native backends' suites on a second Node line and select's
// runtime matrix (Node 20/22/24/26, Bun, Deno, all from npm), and prints one line totalling
// every suite.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pnpmCommand } from './pnpm.mjs'
import { failedTests } from './test-failures.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const workspaces = ['packages', 'apps'].flatMap((dir) =>
  existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((name) => join(root, dir, name)) : [],
)
// examples/ and tests/cross-backend are workspaces of their own (pnpm-workspace.yaml);
// scripts/pack-install reports into root.
const reportDirs = [root, ...workspaces, join(root, 'examples'), join(root, 'tests', 'cross-backend')]
for (const dir of reportDirs) rmSync(join(dir, 'test-results'), { recursive: true, force: true })

const failedSteps = []
const step = (command) => {
  const ok = spawnSync(command, { cwd: root, stdio: 'inherit', shell: true }).status === 0
  if (!ok) failedSteps.push(command)
  return ok
}
// `--packages-only` skips the other runtimes (about 800 MB of downloads the first time).
const packagesOnly = process.argv.includes('--packages-only')
const steps = [
  // The remote backend's fleet tests need HAProxy (Debian's package): found, or installed here.
  step('node scripts/ensure-haproxy.mjs'),
  // Types are part of the public API: a type error fails the run like a failing test.
  step(`${pnpmCommand()} exec turbo run typecheck --output-logs=errors-only`),
  // ESLint (type-aware) and Prettier: a finding fails the run like a failing test.
  step(`${pnpmCommand()} run lint`),
  // What npm would publish: publint and arethetypeswrong on every publishable package.
  step(`${pnpmCommand()} exec turbo run lint:package --output-logs=errors-only`),
  step(`${pnpmCommand()} exec turbo run test --concurrency=1 --continue --output-logs=full`),
  // Packs every publishable package and installs the tarballs with npm in fresh projects outside
  // the workspace: READMEs' examples, select, conformance, types, changesets, publish dry run.
  step(`${pnpmCommand()} run test:pack-install`),
]
if (!packagesOnly) {
  // isolated-vm is a native addon built per Node ABI, and the child's permission flags differ
  // by Node line: both native backends' suites run on the newest Node too. The engine-children
  // conformance suites (QuickJS and isolated-vm engines) are left to the main line: what they check
  // depends on the engine and the channel, which do not change with Node, while what does (the
  // children's launch flags, loading the addon in a child) is in engine-children.test.ts and
  // conformance-faults.test.ts, which start, limit and kill both kinds of engine child on Node 26,
  // and backend-ivm's own conformance suite runs isolated-vm on Node 26 in full.
  steps.push(
    step(
      'node scripts/test-node-line.mjs --node=26 --packages=@cordon/backend-ivm,@cordon/backend-subprocess --exclude=test/conformance-quickjs.test.ts,test/conformance-isolated-vm.test.ts --json=test-results/node26.json',
    ),
  )
  steps.push(step('node packages/select/scripts/runtime-matrix.mjs --json=test-results/runtime-matrix.json'))
}
const allStepsOk = steps.every(Boolean)

let passed = 0
let failed = 0
// CI keeps only the end of the log: name every failure right above the total.
const failures = []
for (const dir of reportDirs) {
  const results = join(dir, 'test-results')
  if (!existsSync(results)) continue
  for (const file of readdirSync(results)) {
    if (!file.endsWith('.json')) continue
    const report = JSON.parse(readFileSync(join(results, file), 'utf8'))
    // vitest's JSON reporter (jest format) or our own { passed, failed } summaries.
    passed += report.numPassedTests ?? report.passed ?? 0
    failed += report.numFailedTests ?? report.failed ?? 0
    if (report.numTotalTests === 0 && report.success === false) failed++
    failures.push(...failedTests(report, root), ...(report.failures ?? []))
  }
}
for (const command of failedSteps) console.log(`step failed: ${command}`)
for (const failure of failures) console.log(`failed: ${failure}`)
const crashed = !allStepsOk && failed === 0 ? 1 : 0
console.log(`tests: ${passed} passed, ${failed + crashed} failed`)
process.exit(allStepsOk && failed === 0 ? 0 : 1)
