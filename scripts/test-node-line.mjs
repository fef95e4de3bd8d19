// Runs some packages' test suites on another Node line (installed from npm), in a copy of
// the workspace: native addons (isolated-vm) are built per Node ABI, so the copy gets its
// own node_modules, installed and built by that Node.
//
//   node scripts/test-node-line.mjs --node=24 --packages=@cordon/backend-ivm,@cordon/backend-subprocess
//        [--json=test-results/node24.json] [--exclude=test/a.test.ts,test/b.test.ts]
//        [--project=parallel|quiet] [--reuse]
//
// --exclude skips test files whose behaviour does not depend on the Node line (vitest globs).
// --project runs one of the vitest projects of config/vitest.base.ts (default: both, in order);
// --reuse tests the copy an earlier call installed and built, when it is there (test-all.mjs
// runs the parallel project first, then the quiet one in the same copy).
//
// Runtimes live under $CORDON_RUNTIMES_DIR (default <tmp>/cordon-runtimes), shared with
// packages/select/scripts/runtime-matrix.mjs. Prints one summary line; exits non-zero on failure.
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pnpmCommand } from './pnpm.mjs'
import { failedTests } from './test-failures.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=')))
const major = Number(args.node)
const packages = (args.packages ?? '').split(',').filter(Boolean)
const excluded = (args.exclude ?? '').split(',').filter(Boolean)
const project = args.project
if (!Number.isInteger(major) || packages.length === 0) {
  console.error('usage: test-node-line.mjs --node=<major> --packages=<name,…> [--json=<file>]')
  process.exit(2)
}
const started = performance.now()
const runtimes = process.env.CORDON_RUNTIMES_DIR ?? join(tmpdir(), 'cordon-runtimes')
const nodePackage = `node-${process.platform}-${process.arch}`
const nodeHome = join(runtimes, `node${major}`, 'node_modules', nodePackage)
const nodeBin = join(nodeHome, 'bin', 'node')
const copy = join(tmpdir(), `cordon-node${major}-workspace`)
const reportName = project === 'quiet' ? 'vitest-quiet.json' : 'vitest.json'

const quietNpm = { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' }
if (!existsSync(nodeBin)) {
  console.log(`installing ${nodePackage}@${major} under ${runtimes}`)
  execFileSync('npm', ['i', '--prefix', join(runtimes, `node${major}`), '--no-save', '--no-package-lock', `${nodePackage}@${major}`], {
    stdio: 'inherit',
    env: { ...process.env, ...quietNpm },
  })
}

// Written once the copy is installed and built: --reuse skips those steps when it is there.
const preparedMark = join(copy, '.prepared')
const reuse = 'reuse' in args && existsSync(preparedMark)
if (!reuse) {
  // The files git would commit (tracked and new, not ignored): no node_modules, dist or caches.
  rmSync(copy, { recursive: true, force: true })
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\0')
    .filter((file) => file && existsSync(join(root, file)))
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    cpSync(join(root, file), join(copy, file))
  }
}

// This Node first on PATH (pnpm, node-gyp and vitest run on it); its own headers for native builds.
// npm's own variables go: under `npm test`, npm_config_node_version (the outer Node) makes pnpm
// install for that Node, skipping isolated-vm 7 and reusing another ABI's build.
const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
const env = {
  ...inherited,
  ...quietNpm,
  PATH: `${dirname(nodeBin)}:${process.env.PATH}`,
  npm_config_nodedir: nodeHome,
  // Read by config/vitest.base.ts (vitest's own --exclude does not reach its projects).
  CORDON_TEST_EXCLUDE: excluded.join(','),
}
const pnpm = pnpmCommand()
const sh = (command) => spawnSync(command, { cwd: copy, env, stdio: 'inherit', shell: true }).status === 0
const version = execFileSync(nodeBin, ['--version']).toString().trim()
console.log(`testing ${packages.join(', ')} on Node ${version} in ${copy}`)

const filters = packages.map((name) => `--filter=${name}...`).join(' ')
const ok =
  reuse ||
  (sh(`${pnpm} install --frozen-lockfile --reporter=silent`) && sh(`${pnpm} exec turbo run build --output-logs=errors-only ${filters}`))
if (ok && !reuse) writeFileSync(preparedMark, version)

let passed = 0
let failed = 0
const failures = []
// A suite that quietly ran on the wrong engine proves nothing: when the ivm backend is among
// the packages, it must really run a program on this Node first.
if (ok && packages.includes('@cordon/backend-ivm')) {
  const probe = `import { createSandbox } from '@cordon/core'
import { createIvmBackend } from './dist/index.js'
const s = createSandbox(createIvmBackend())
const r = await s.run("return typeof process === 'undefined' ? 1 + 1 : 0").catch((e) => ({ ok: false, error: { message: String(e) } }))
await s.dispose()
console.log(r.ok ? 'ivm runs on ' + process.version : 'ivm does not run on ' + process.version + ': ' + r.error.message)
process.exit(r.ok && r.value === 2 ? 0 : 1)`
  const engine = spawnSync(nodeBin, ['--no-node-snapshot', '--input-type=module', '-e', probe], {
    cwd: join(copy, 'packages', 'backend-ivm'),
    env,
    stdio: 'inherit',
  })
  if (engine.status !== 0) failed++
}
// One worker: test-all.mjs runs this beside another job.
const vitestArgs = [
  ...(project ? [`--project ${project}`, '--maxWorkers=1', '--passWithNoTests'] : []),
  `--outputFile.json=test-results/${reportName}`,
].join(' ')
for (const name of packages) {
  if (!ok) break
  const status = sh(`${pnpm} --filter ${name} exec vitest run ${vitestArgs}`)
  const report = readReport(name)
  passed += report.passed
  failed += report.failed
  if (!status && report.failed === 0) failed++
}
if (!ok) failed++

function readReport(name) {
  const dir = join(copy, 'packages', name.replace('@cordon/', ''))
  const file = join(dir, 'test-results', reportName)
  if (!existsSync(file)) return { passed: 0, failed: 1 }
  const report = JSON.parse(readFileSync(file, 'utf8'))
  failures.push(...failedTests(report, copy).map((line) => `Node ${version}: ${line}`))
  return { passed: report.numPassedTests, failed: report.numFailedTests + (report.numTotalTests === 0 ? 1 : 0) }
}

const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(`Node ${version}: ${passed} passed, ${failed} failed in ${seconds}s`)
if (args.json) {
  mkdirSync(dirname(join(root, args.json)), { recursive: true })
  writeFileSync(
    join(root, args.json),
    JSON.stringify({ node: version, packages, passed, failed, failures, seconds: Number(seconds) }, null, 2),
  )
}
process.exit(failed === 0 ? 0 : 1)
