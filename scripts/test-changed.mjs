// The inner loop: tests what a change touches, in minutes. Finds the workspaces with changed
// files (uncommitted, and committed since --base when given), builds them (and what they depend
// on), type-checks them and every workspace that depends on them, and runs their own test suites
// in the same two lanes as CI (scripts/test-lanes.mjs). CI's `npm test` stays the full check.
//
//   node scripts/test-changed.mjs [--base=<git ref>] [--only=<name>,…] [--dependents] [--slots=N]
//
// --only names workspaces instead of asking git; --dependents also runs the suites of the
// workspaces that depend on the changed ones. A change under config/ or to the root manifests
// touches every workspace; a change under scripts/pack-install adds the pack-install job.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { pnpmCommand } from './pnpm.mjs'
import { defaultSlots, root, workspaceJobs, workspaces } from './test-jobs.mjs'
import { runLanes } from './test-lanes.mjs'
import { clearReports, reportTimings, totalReports } from './test-report.mjs'

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const slots = Number(args.slots ?? process.env.CORDON_TEST_SLOTS ?? defaultSlots())
const started = performance.now()
const all = workspaces()
const pnpm = pnpmCommand()

function changedFiles() {
  const git = (...argv) => execFileSync('git', argv, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean)
  const files = [...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]
  if (args.base) files.push(...git('diff', '--name-only', `${args.base}...HEAD`))
  return [...new Set(files)]
}

const WHOLE_REPO = ['config/', 'package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'turbo.json', 'tsconfig.base.json']
const files = args.only ? [] : changedFiles()
const touchesAll = files.some((file) => WHOLE_REPO.some((prefix) => file === prefix || file.startsWith(prefix)))
const owner = (file) => all.find((workspace) => (file + sep).startsWith(relative(root, workspace.dir) + sep))
const changed = args.only
  ? all.filter((workspace) => args.only.split(',').includes(workspace.name))
  : touchesAll
    ? all
    : all.filter((workspace) => files.some((file) => owner(file) === workspace))
const packInstall = files.some((file) => file.startsWith('scripts/pack-install/'))

if (changed.length === 0 && !packInstall) {
  console.log(
    `nothing to test: no workspace has changed files${args.base ? ` since ${args.base}` : ''} (use --only=<name> or --base=<ref>)`,
  )
  process.exit(0)
}

/** Workspaces that depend (dev dependencies too) on any of `names`, transitively. */
function dependentsOf(names) {
  const found = new Set(names)
  for (let grew = true; grew;) {
    grew = false
    for (const workspace of all) {
      if (found.has(workspace.name)) continue
      const manifest = JSON.parse(readFileSync(join(workspace.dir, 'package.json'), 'utf8'))
      const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies })
      if (deps.some((dep) => found.has(dep))) found.add(workspace.name) && (grew = true)
    }
  }
  return all.filter((workspace) => found.has(workspace.name))
}

const tested = 'dependents' in args ? dependentsOf(changed.map((workspace) => workspace.name)) : changed
console.log(`testing ${tested.map((workspace) => workspace.name).join(', ') || 'nothing but pack-install'}`)

// The tests run the built packages (children, bins, cross-package imports): build what they need.
const buildFilters = tested.map((workspace) => `--filter=${workspace.name}...`).join(' ')
if (tested.length > 0)
  execFileSync(`${pnpm} exec turbo run build --output-logs=errors-only ${buildFilters}`, { cwd: root, stdio: 'inherit', shell: true })

const reportDirs = [root, ...tested.map((workspace) => workspace.dir)]
clearReports(reportDirs)
// Alone, a workspace's parallel files get both cores; beside other jobs, one each.
const workers = tested.length === 1 && !packInstall ? slots : 1
const jobs = tested.flatMap((workspace) => workspaceJobs(workspace, { workers }))
const typecheckFilters = changed.map((workspace) => `--filter=...${workspace.name}`).join(' ')
if (changed.length > 0) {
  jobs.push({
    name: 'types',
    lane: 'parallel',
    cwd: root,
    costS: 60,
    command: `${pnpm} exec turbo run typecheck --output-logs=errors-only ${typecheckFilters}`,
  })
}
if (packInstall) jobs.push({ name: 'pack-install', lane: 'parallel', cwd: root, costS: 100, command: `${pnpm} run test:pack-install` })

const outcomes = await runLanes(jobs, { slots })
const { passed, failed, failures } = totalReports(reportDirs, root)
reportTimings(outcomes, root, (performance.now() - started) / 1000)
for (const outcome of outcomes) if (!outcome.ok) console.log(`job failed: ${outcome.name}`)
for (const failure of failures) console.log(`failed: ${failure}`)
const allJobsOk = outcomes.every((outcome) => outcome.ok)
console.log(`tests: ${passed} passed, ${failed + (!allJobsOk && failed === 0 ? 1 : 0)} failed`)
process.exit(allJobsOk && failed === 0 ? 0 : 1)
