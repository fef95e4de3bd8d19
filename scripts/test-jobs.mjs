// The jobs scripts/test-all.mjs (CI) and scripts/test-changed.mjs (the inner loop) schedule with
// scripts/test-lanes.mjs: each workspace's vitest projects (config/vitest.base.ts) as a
// `parallel` job and, when it has *.quiet.test.ts files, a `quiet` job.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('..', import.meta.url))
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs')

/**
 * Seconds each workspace's parallel files took, three jobs at a time on a 2-core VM
 * (test-results/timings.json, 2026-11-27): the lanes start the longest first. Unknown ones count as 30.
 */
const COST_S = {
  '@cordon/backend-subprocess': 336,
  '@cordon/backend-quickjs': 294,
  '@cordon/server': 101,
  '@cordon/conformance': 99,
  '@cordon/mcp-server': 72,
  '@cordon/backend-ivm': 71,
  '@cordon/cli': 90,
  '@cordon/cross-backend-tests': 45,
  '@cordon/bench': 40,
  '@cordon/core': 18,
  '@cordon/examples': 9,
  '@cordon/select': 8,
  '@cordon/backend-remote': 5,
  '@cordon/tanstack-ai': 6,
  '@cordon/mastra': 14,
  '@cordon/utcp': 22,
  '@cordon/cloudflare-codemode': 26,
  // The conformance suite against QuickJS in Chromium (tests/browser): ~110 s alone on a fast day,
  // 430–820 s beside two other suites (RUNS_ALONE).
  '@cordon/browser-tests': 250,
  '@cordon/playground': 5,
}

/**
 * Workspaces whose parallel files run in the quiet lane, with nothing beside them. Chromium's
 * renderer, GPU and worker processes compete with two other suites for two cores: on a slow day
 * the page went unanswered for seconds (a 3 s run of `throw new TypeError('x')` ended TIMEOUT,
 * durable runs did not settle in 10 s) and the job took 820 s instead of 430.
 */
const RUNS_ALONE = new Set(['@cordon/browser-tests'])

/**
 * Parallel jobs at a time: as many as the cores. Three at a time on two cores ended 18% sooner
 * than two on a fast day (2026-11-27: 16–17 min), but the same VM kind is 2–3× slower on other
 * days (`node -p` 105–110 ms instead of 49), and there three suites, with their children and
 * workers, starved each other's timing checks past what measured contention excuses: the clean
 * CI runs of 2026-11-28/29 took 43–47 min and failed 2 to 32 checks of time, none on a quiet
 * machine. Two at a time took no longer there (2752 s against 2821 s: each suite ran faster).
 */
export function defaultSlots() {
  return availableParallelism()
}

/** Every workspace with a test script: { name, dir }. */
export function workspaces() {
  const dirs = ['packages', 'apps', 'tests']
    .flatMap((folder) => (existsSync(join(root, folder)) ? readdirSync(join(root, folder)).map((name) => join(root, folder, name)) : []))
    .concat(join(root, 'examples'))
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.scripts?.test)
    .map(({ dir, manifest }) => ({ name: manifest.name, dir, usesVitest: manifest.scripts.test.startsWith('vitest') }))
}

function hasQuietFiles(dir) {
  const walk = (folder) =>
    readdirSync(folder, { withFileTypes: true }).some((entry) =>
      entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.quiet.test.ts'),
    )
  return existsSync(join(dir, 'test')) && walk(join(dir, 'test'))
}

/**
 * The jobs that test one workspace. `workers` is vitest's maxWorkers for the parallel files: 1
 * when the lanes already run two jobs at once.
 */
export function workspaceJobs({ name, dir, usesVitest }, { workers = 1 } = {}) {
  const costS = COST_S[name] ?? 30
  if (!usesVitest) return [{ name, lane: 'parallel', cwd: dir, costS, command: 'npm test --silent' }]
  const run = `node ${JSON.stringify(vitest)} run`
  // --passWithNoTests: a workspace may have quiet files only (apps/playground).
  const lane = RUNS_ALONE.has(name) ? 'quiet' : 'parallel'
  const jobs = [{ name, lane, cwd: dir, costS, command: `${run} --project parallel --maxWorkers=${workers} --passWithNoTests` }]
  if (hasQuietFiles(dir)) {
    jobs.push({
      name: `${name} (quiet)`,
      lane: 'quiet',
      cwd: dir,
      costS: 0,
      // Its own report beside the parallel project's (scripts/test-report.mjs reads both).
      command: `${run} --project quiet --outputFile.json=test-results/vitest-quiet.json`,
    })
  }
  return jobs
}
