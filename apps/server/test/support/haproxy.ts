import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** Debian puts HAProxy in /usr/sbin, which a non-root PATH may lack. */
const PLACES = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy']

/** The HAProxy binary, or a loud error saying how to get it (`npm test` installs it where it may). */
export function findHaproxy(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim()
  const found = onPath || PLACES.find((place) => existsSync(place))
  if (found === undefined || found === '')
    throw new Error(
      'HAProxy is not installed, and the fleet tests need a real one: run `apt-get install haproxy` ' +
        '(npm test does it through scripts/ensure-debian-packages.mjs when it runs as root)',
    )
  return found
}
