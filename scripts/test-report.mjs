// Adds up the reports the jobs wrote (vitest's JSON reports in each workspace's test-results/,
// and our own { passed, failed, failures } summaries), names every failed test, and prints the
// jobs' times: the one line `tests: N passed, N failed` comes last, for CI logs that keep only their end.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { failedTests } from './test-failures.mjs'

/** Empties the report folders, so a report left by an earlier run is never counted. */
export function clearReports(dirs) {
  for (const dir of dirs) rmSync(join(dir, 'test-results'), { recursive: true, force: true })
}

/** @param {string[]} dirs folders whose test-results/ hold reports @param {string} root for relative names */
export function totalReports(dirs, root) {
  let passed = 0
  let failed = 0
  const failures = []
  for (const dir of dirs) {
    const results = join(dir, 'test-results')
    if (!existsSync(results)) continue
    for (const file of readdirSync(results)) {
      if (!file.endsWith('.json') || file === 'timings.json') continue
      const report = JSON.parse(readFileSync(join(results, file), 'utf8'))
      passed += report.numPassedTests ?? report.passed ?? 0
      failed += report.numFailedTests ?? report.failed ?? 0
      if (report.numTotalTests === 0 && report.success === false) failed++
      failures.push(...failedTests(report, root), ...(report.failures ?? []))
    }
  }
  return { passed, failed, failures }
}

/** Prints each job's lane and time, longest first, and keeps them in <root>/test-results/timings.json. */
export function reportTimings(outcomes, root, wallS) {
  const rows = [...outcomes].sort((a, b) => b.seconds - a.seconds)
  console.log(`\njobs (${wallS.toFixed(0)} s in all):`)
  for (const job of rows) {
    const state = job.skipped ? `not run (${job.skipped})` : job.ok ? '' : 'FAILED'
    console.log(`  ${job.seconds.toFixed(1).padStart(7)} s  ${job.lane.padEnd(8)} ${job.name} ${state}`.trimEnd())
  }
  mkdirSync(join(root, 'test-results'), { recursive: true })
  writeFileSync(join(root, 'test-results', 'timings.json'), JSON.stringify({ wallS, jobs: rows }, null, 2))
}
