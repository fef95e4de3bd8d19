/**
 * The attack corpus: one check per publicly documented sandbox-escape technique, each
 * citing its source. An escape is a guest reaching a host Function, `process` or `require`,
 * a host handle, a host secret (environment variable or file), or setting a marker on the
 * host's global; every check asserts none of that happened and the sandbox still works.
 */
import type { ConformanceCheck } from '../types.js'
import { bufferAttacks } from './attacks-buffers.js'
import { engineAttacks } from './attacks-engines.js'
import { errorAttacks } from './attacks-errors.js'
import { promiseAttacks } from './attacks-promises.js'
import { proxyAttacks } from './attacks-proxies.js'

export const attacksChecks: readonly ConformanceCheck[] = [
  ...promiseAttacks,
  ...errorAttacks,
  ...proxyAttacks,
  ...engineAttacks,
  ...bufferAttacks,
]
