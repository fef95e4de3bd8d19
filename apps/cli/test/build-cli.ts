import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The tests run dist/cli.js as a user would: build it when it is missing or older than its sources. */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const cli = path.join(root, 'dist', 'cli.js')
  const sources = [
    ...readdirSync(path.join(root, 'src')).map((name) => path.join(root, 'src', name)),
    path.join(root, 'package.json'),
    path.join(root, 'tsup.config.ts'),
  ]
  if (existsSync(cli) && sources.every((file) => statSync(file).mtimeMs <= statSync(cli).mtimeMs)) return
  const tsup = path.join(path.dirname(createRequire(import.meta.url).resolve('tsup/package.json')), 'dist', 'cli-default.js')
  execFileSync(process.execPath, [tsup, '--silent'], { cwd: root, stdio: 'inherit' })
}
