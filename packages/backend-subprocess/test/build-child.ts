import { fileURLToPath } from 'node:url'
import { buildIfStale } from '../../../config/build-if-stale.js'

/** Children run dist/child.js and dist/engine-child.js even when the tests import the sources: build them when stale. */
export default function setup(): void {
  buildIfStale(fileURLToPath(new URL('..', import.meta.url)), 'dist/engine-child.js')
}
