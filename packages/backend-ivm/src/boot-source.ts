import { GUEST_RUNTIME_SOURCE } from '@cordon/core/backend'
import { hardenGuestRealm } from './guest-hardening.js'

/** The file name the boot code is compiled under (it shows in stacks of runtime internals). */
export const BOOT_FILENAME = 'cordon-runtime.js'

/**
 * The body of the closure each fresh isolate evaluates, before any guest code, with
 * `context.evalClosure`. Its arguments are host callbacks (plain functions in the guest):
 * $0 log, $1 call, $2 callSync, $3 timer, $4 done, $5 allocation failure.
 * They are only ever held in closures here, never written to a global. The returned
 * array holds the four runtime functions the host keeps References to; the runtime's
 * functions do not use `this`, so calling them detached is fine.
 */
export const BOOT_SOURCE = `'use strict';
(${hardenGuestRealm.toString()})($5);
const runtime = (${GUEST_RUNTIME_SOURCE})({ log: $0, call: $1, callSync: $2, timer: $3, done: $4 });
return [runtime.install, runtime.start, runtime.settle, runtime.fire];`
