import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  )
}

/**
 * For a test globalSetup whose tests run a package's dist (a child's entry, a bin): builds the
 * package with tsup when `output` is missing or older than anything under src/, package.json or
 * tsup.config.ts. Never when it is current: suites running side by side read the same dist, and
 * tsup empties it while it builds.
 */
export function buildIfStale(packageRoot: string, output: string): void {
  const built = path.join(packageRoot, output)
  const inputs = [
    ...filesUnder(path.join(packageRoot, 'src')),
    path.join(packageRoot, 'package.json'),
    path.join(packageRoot, 'tsup.config.ts'),
  ]
  if (existsSync(built) && inputs.every((file) => statSync(file).mtimeMs <= statSync(built).mtimeMs)) return
  const tsup = path.join(
    path.dirname(createRequire(path.join(packageRoot, 'package.json')).resolve('tsup/package.json')),
    'dist',
    'cli-default.js',
  )
  execFileSync(process.execPath, [tsup, '--silent'], { cwd: packageRoot, stdio: 'inherit' })
}
