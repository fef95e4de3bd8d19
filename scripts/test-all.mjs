// The README's test command (after scripts/bootstrap.mjs): every check CI runs, in two lanes
// (scripts/test-lanes.mjs). The `parallel` lane, two jobs at a time on two cores: types, lint and package
// lint; each workspace's test files but the *.quiet.test.ts ones; the published packages as users
// install them (scripts/pack-install); the native backends' suites on a second Node line; and
// select's runtime matrix (Node 20/22/24/26, Bun, Deno, all from npm). Then the `quiet` lane, one
// job at a time with nothing beside it: the *.quiet.test.ts files, which measure the host's
// event loop in milliseconds. Prints every job's time and one line totalling every suite.
//
//   node scripts/test-all.mjs [--packages-only] [--slots=N]
//
// --slots (or $CORDON_TEST_SLOTS): parallel jobs at a time, default as many as the cores.
import { spawnSync } from 'node:child_process'
import { pnpmCommand } from './pnpm.mjs'
import { defaultSlots, root, workspaceJobs, workspaces } from './test-jobs.mjs'
import { runLanes } from './test-lanes.mjs'
import { clearReports, reportTimings, totalReports } from './test-report.mjs'

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
// `--packages-only` skips the other runtimes (about 800 MB of downloads the first time).
const packagesOnly = 'packages-only' in args
const slots = Number(args.slots ?? process.env.CORDON_TEST_SLOTS ?? defaultSlots())
const started = performance.now()
const pnpm = pnpmCommand()
const all = workspaces()
const reportDirs = [root, ...all.map((workspace) => workspace.dir)]
clearReports(reportDirs)

// The fleet tests need HAProxy, the browser tests Chromium (Debian's packages): found, or installed here, first.
const debianPackages = spawnSync('node scripts/ensure-debian-packages.mjs', { cwd: root, stdio: 'inherit', shell: true }).status === 0

const job = (name, command, costS, lane = 'parallel') => ({ name, command, costS, lane, cwd: root })
const jobs = [
  // Types are part of the public API; ESLint (type-aware), Prettier, publint and arethetypeswrong
  // on every publishable package: a finding fails the run like a failing test. `--only`: the
  // packages are built (bootstrap.mjs), and a build beside running suites would rewrite their dist.
  job(
    'types, lint, package lint',
    `${pnpm} exec turbo run typecheck lint lint:package --only --output-logs=errors-only && ${pnpm} run lint:root`,
    90,
  ),
  // Packs every publishable package and installs the tarballs with npm in fresh projects outside
  // the workspace: READMEs' examples, select, conformance, types, changesets, publish dry run.
  job('pack-install', `${pnpm} run test:pack-install`, 141),
  ...all.flatMap((workspace) => workspaceJobs(workspace)),
]
if (!packagesOnly) {
  // isolated-vm is a native addon built per Node ABI, and the child's permission flags differ
  // by Node line: both native backends' suites run on the newest Node too. The engine-children
  // conformance suites (QuickJS and isolated-vm engines) are left to the main line: what they check
  // depends on the engine and the channel, which do not change with Node, while what does (the
  // children's launch flags, loading the addon in a child) is in engine-children.test.ts and
  // conformance-faults.test.ts, which start, limit and kill both kinds of engine child on Node 26,
  // and backend-ivm's own conformance suite runs isolated-vm on Node 26 in full.
  const nodeLine =
    'node scripts/test-node-line.mjs --node=26 --packages=@cordon/backend-ivm,@cordon/backend-subprocess --exclude=test/conformance-quickjs.test.ts,test/conformance-isolated-vm.test.ts'
  jobs.push(job('Node 26', `${nodeLine} --project=parallel --json=test-results/node26.json`, 287))
  jobs.push({
    ...job('Node 26 (quiet)', `${nodeLine} --project=quiet --reuse --json=test-results/node26-quiet.json`, 0, 'quiet'),
    after: ['Node 26'],
  })
  jobs.push(job('runtime matrix', 'node packages/select/scripts/runtime-matrix.mjs --json=test-results/runtime-matrix.json', 34))
}

const outcomes = await runLanes(jobs, { slots })
const { passed, failed, failures } = totalReports(reportDirs, root)
reportTimings(outcomes, root, (performance.now() - started) / 1000)
if (!debianPackages) console.log('step failed: node scripts/ensure-debian-packages.mjs')
for (const outcome of outcomes)
  if (!outcome.ok) console.log(`job failed: ${outcome.name}${outcome.skipped ? ` (not run: ${outcome.skipped})` : ''}`)
for (const failure of failures) console.log(`failed: ${failure}`)
// A job that failed without a failing test in any report (a crash, a lint finding) counts once.
const allJobsOk = debianPackages && outcomes.every((outcome) => outcome.ok)
const crashed = !allJobsOk && failed === 0 ? 1 : 0
console.log(`tests: ${passed} passed, ${failed + crashed} failed`)
process.exit(allJobsOk && failed === 0 ? 0 : 1)
