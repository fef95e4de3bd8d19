import { fileURLToPath } from 'node:url'
import { buildIfStale } from '../../../config/build-if-stale.js'

/** The tests run dist/cli.js as a user would: build it when it is missing or older than its sources. */
export default function setup(): void {
  buildIfStale(fileURLToPath(new URL('..', import.meta.url)), 'dist/cli.js')
}
