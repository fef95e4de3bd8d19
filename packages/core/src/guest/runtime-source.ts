import { createCodec } from './codec.js'
import { createFetchApi } from './fetch-api.js'
import { createUtf8 } from './utf8.js'
import { createInspect } from './inspect.js'
import { createPlainJson } from './plain-json.js'
import { PRIMORDIALS_SOURCE } from './primordials.js'
import { cordonGuestRuntime } from './runtime.js'
import { createStructuredClone } from './structured-clone.js'

/**
 * Source text of one expression that evaluates to `(host) => GuestRuntime`.
 * Built from the same functions the host uses, so host and guest share one codec. The
 * primordials are captured when the runtime is made, before any guest code runs.
 */
export const GUEST_RUNTIME_SOURCE = `(function (host) {
  return (${cordonGuestRuntime.toString()})(host, ${PRIMORDIALS_SOURCE}, function (p) { return (${createCodec.toString()})(p, ${createPlainJson.toString()}) }, ${createInspect.toString()}, ${createFetchApi.toString()}, ${createUtf8.toString()}, ${createStructuredClone.toString()})
})`

/** The file name guest scripts are compiled under; stacks read `guest.js:LINE:COL`. */
export const GUEST_FILENAME = 'guest.js'
