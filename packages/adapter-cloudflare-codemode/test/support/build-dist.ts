import { fileURLToPath } from 'node:url'
import { buildIfStale } from '../../../../config/build-if-stale.js'

/** The AI SDK test runs a child `node --import dist/register.js`: build dist when it is stale. */
export default function setup(): void {
  buildIfStale(fileURLToPath(new URL('../..', import.meta.url)), 'dist/register.js')
}
