// Debian's Chromium (`apt-get install chromium`, which scripts/ensure-debian-packages.mjs does for
// `npm test`), as the browser tests, the playground and the CLI's screenshot script launch it
// with playwright-core: no browser download.
import { existsSync } from 'node:fs'

/** Where Debian's package (and Ubuntu's older one) put it. */
export const CHROMIUM_PLACES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

/** Chromium's own sandbox cannot start as root (CI); the pages it opens here are ours. */
export const CHROMIUM_ARGS = ['--no-sandbox']

/** `CHROMIUM_PATH`, else Debian's Chromium; throws saying how to install it when there is none. */
export function chromiumExecutable() {
  const found = process.env.CHROMIUM_PATH ?? CHROMIUM_PLACES.find((place) => existsSync(place))
  if (found === undefined) throw new Error("no Chromium found: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH")
  return found
}
