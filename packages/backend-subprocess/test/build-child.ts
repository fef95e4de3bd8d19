import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Children run dist/child.js even when the tests import the sources: build the package first. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const tsup = path.join(path.dirname(createRequire(import.meta.url).resolve('tsup/package.json')), 'dist', 'cli-default.js')
  execFileSync(process.execPath, [tsup, '--silent'], { cwd: root, stdio: 'inherit' })
}
