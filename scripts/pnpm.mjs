// The pinned pnpm command, whether or not pnpm is installed globally.
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const { packageManager } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const version = packageManager.split('@')[1]

export function pnpmCommand() {
  try {
    const found = execSync('pnpm --version', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
    if (found === version) return 'pnpm'
  } catch {
    // No pnpm on PATH (or it fails): the pinned one from npx below.
  }
  return `npx -y pnpm@${version}`
}
