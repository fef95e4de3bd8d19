import { execFileSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/**
 * The path of the `haproxy` binary, installing Debian's package first when it is missing (the
 * test runs as root on CI's Debian/Ubuntu machines: `apt-get update`, then
 * `apt-get install -y haproxy`). Throws, never skips, when neither works: a load-balanced
 * deployment that is not tested is not known to work.
 */
export function ensureHaproxy(): string {
  const found = which('haproxy')
  if (found !== undefined) return found
  const problems: string[] = []
  if (process.platform !== 'linux' || which('apt-get') === undefined) problems.push('apt-get is not available here (not Debian/Ubuntu)')
  else if (process.getuid?.() !== 0) problems.push('not running as root, so apt-get cannot install it')
  else {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    try {
      execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'pipe'], env, timeout: 300_000 })
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'haproxy'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env,
        timeout: 300_000,
      })
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim()
      problems.push(`apt-get failed: ${stderr || (error as Error).message}`)
    }
    const installed = which('haproxy')
    if (installed !== undefined) return installed
    if (problems.length === 0) problems.push('apt-get install -y haproxy succeeded but no haproxy is on PATH')
  }
  throw new Error(
    `HAProxy is needed for the load-balancer test and could not be found or installed: ${problems.join('; ')}. Install it (e.g. apt-get install haproxy, brew install haproxy) and run the tests again.`,
  )
}

/** The first executable `command` on PATH, or in /usr/sbin and /sbin (where Debian puts haproxy). */
function which(command: string): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/sbin']) {
    if (dir === '') continue
    const file = path.join(dir, command)
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}
