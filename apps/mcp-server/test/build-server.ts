import { fileURLToPath } from 'node:url'
import { buildIfStale } from '../../../config/build-if-stale.js'

/**
 * The tests start dist/server.js the way an MCP client does, so it must be current: build it
 * when it is missing or older than anything it is built from. (`npm test` builds first anyway;
 * this covers `pnpm test` and `vitest` run by hand.)
 */
export default function setup(): void {
  buildIfStale(fileURLToPath(new URL('..', import.meta.url)), 'dist/server.js')
}
