// Serves dist/ on loopback, cross-origin isolated (COOP/COEP), so a stop reaches a spinning guest
// through shared memory. `node scripts/serve.mjs [port]` (default 5173); `--no-isolation` leaves
// the headers out (stops then end the guest's worker instead).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { serveStatic } from '../../../config/static-server.mjs'

const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist')

/** Starts the server; resolves with its URL and a close function. */
export function servePlayground({ port = 0, isolated = true } = {}) {
  return serveStatic({ dir: DIST, port, isolated })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const port = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 5173)
  const { url } = await servePlayground({ port, isolated: !args.includes('--no-isolation') })
  console.log(`cordon playground: ${url}`)
}
