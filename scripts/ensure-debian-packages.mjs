// Tests that drive real programs from Debian's packages: the remote backend's fleet tests run a
// real HAProxy in front of three cordon-server processes, and the browser tests run a real
// headless Chromium. Finds each, or installs it with apt-get where this user may; otherwise says
// loudly how to, and those tests fail saying the same. Exits non-zero when one is missing.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { CHROMIUM_PLACES } from '../config/chromium.mjs'

const PACKAGES = [
  {
    name: 'haproxy',
    command: 'haproxy',
    places: ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'],
    for: 'the fleet tests',
  },
  { name: 'chromium', command: 'chromium', places: CHROMIUM_PLACES, for: 'the browser tests' },
]

function found(wanted) {
  const onPath = spawnSync('sh', ['-c', `command -v ${wanted.command}`], { encoding: 'utf8' }).stdout.trim()
  return onPath || wanted.places.find((place) => existsSync(place))
}

let updated = false
function aptInstall(name) {
  const root = process.getuid?.() === 0
  const prefix = root ? [] : ['sudo', '-n']
  if (spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status !== 0) return 'apt-get is not available here'
  if (!root && spawnSync('sudo', ['-n', 'true']).status !== 0) return 'not root, and sudo needs a password'
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  try {
    const [command, ...args] = [...prefix, 'apt-get']
    if (!updated) execFileSync(command, [...args, 'update', '-qq'], { stdio: 'inherit', env })
    updated = true
    execFileSync(command, [...args, 'install', '-y', '-qq', '--no-install-recommends', name], { stdio: 'inherit', env })
    return undefined
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

let missing = 0
for (const wanted of PACKAGES) {
  let path = found(wanted)
  if (path === undefined) {
    console.log(`${wanted.name} is not installed: installing Debian's package (apt-get install ${wanted.name}) for ${wanted.for}`)
    const problem = aptInstall(wanted.name)
    path = found(wanted)
    if (path === undefined) {
      missing += 1
      console.log(
        `${wanted.name} could not be installed (${problem ?? `no ${wanted.command} after apt-get`}): ${wanted.for} will fail. Install it with: apt-get install ${wanted.name}`,
      )
    }
  }
  if (path !== undefined) console.log(`${wanted.name} for ${wanted.for}: ${path}`)
}
process.exit(missing === 0 ? 0 : 1)
