// Runs every package's tests one package at a time (limit tests measure time, so they
// must not fight over the two cores), then prints one line totalling every suite.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pnpmCommand } from './pnpm.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const workspaces = ['packages', 'apps'].flatMap((dir) =>
  existsSync(join(root, dir)) ? readdirSync(join(root, dir)).map((name) => join(root, dir, name)) : [],
)
for (const dir of workspaces) rmSync(join(dir, 'test-results'), { recursive: true, force: true })

const turbo = spawnSync(`${pnpmCommand()} exec turbo run test --concurrency=1 --continue --output-logs=full`, {
  cwd: root,
  stdio: 'inherit',
  shell: true,
})

let passed = 0
let failed = 0
for (const dir of workspaces) {
  const results = join(dir, 'test-results')
  if (!existsSync(results)) continue
  for (const file of readdirSync(results)) {
    if (!file.endsWith('.json')) continue
    const report = JSON.parse(readFileSync(join(results, file), 'utf8'))
    // vitest's JSON reporter (jest format) or our own { passed, failed } summaries.
    passed += report.numPassedTests ?? report.passed ?? 0
    failed += report.numFailedTests ?? report.failed ?? 0
    if (report.numTotalTests === 0 && report.success === false) failed++
  }
}
const crashed = turbo.status !== 0 && failed === 0 ? 1 : 0
console.log(`tests: ${passed} passed, ${failed + crashed} failed`)
process.exit(turbo.status === 0 && failed === 0 ? 0 : 1)
