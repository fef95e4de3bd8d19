// The remote backend's fleet tests run a real HAProxy (Debian's package) in front of three
// cordon-server processes. Finds it, or installs it with apt-get where this user may; otherwise
// says loudly how to, and those tests fail saying the same.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const PLACES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy']

function found() {
  const onPath = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim()
  return onPath || PLACES.find((place) => existsSync(place))
}

function aptInstall() {
  const root = process.getuid?.() === 0
  const prefix = root ? [] : ['sudo', '-n']
  if (spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status !== 0) return 'apt-get is not available here'
  if (!root && spawnSync('sudo', ['-n', 'true']).status !== 0) return 'not root, and sudo needs a password'
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  try {
    const [command, ...args] = [...prefix, 'apt-get']
    execFileSync(command, [...args, 'update', '-qq'], { stdio: 'inherit', env })
    execFileSync(command, [...args, 'install', '-y', '-qq', 'haproxy'], { stdio: 'inherit', env })
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

let haproxy = found()
if (haproxy === undefined) {
  console.log("HAProxy is not installed: installing Debian's package (apt-get install haproxy) for the fleet tests")
  const problem = aptInstall()
  haproxy = found()
  if (haproxy === undefined)
    console.log(
      `HAProxy could not be installed (${problem ?? 'no haproxy after apt-get'}): the remote backend's fleet tests will fail. Install it with: apt-get install haproxy`,
    )
}
if (haproxy !== undefined) console.log(`HAProxy for the fleet tests: ${haproxy}`)
