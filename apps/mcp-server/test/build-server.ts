import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The tests start dist/server.js the way an MCP client does, so it must be current: build it
 * when it is missing or older than anything it is built from. (`turbo run test` builds first
 * anyway; this covers `pnpm test` and `vitest` run by hand.)
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const server = path.join(root, 'dist', 'server.js')
  const inputs = [
    ...readdirSync(path.join(root, 'src')).map((name) => path.join(root, 'src', name)),
    path.join(root, 'package.json'),
    path.join(root, 'tsup.config.ts'),
  ]
  if (existsSync(server) && inputs.every((file) => statSync(file).mtimeMs <= statSync(server).mtimeMs)) return
  const tsup = path.join(path.dirname(createRequire(import.meta.url).resolve('tsup/package.json')), 'dist', 'cli-default.js')
  execFileSync(process.execPath, [tsup, '--silent'], { cwd: root, stdio: 'inherit' })
}
