import { GUEST_RUNTIME_SOURCE, PRIMORDIALS_SOURCE } from '@cordon/core/backend'
import { sealBoundary } from './guest/boundary.js'
import { hardenGuestRealm } from './guest/hardening.js'
import { makeLogStore } from './guest/log-store.js'

/** The file name the boot code is compiled under (it shows in stacks of runtime internals). */
export const BOOT_FILENAME = 'cordon-runtime.js'

/**
 * A function expression each fresh isolate compiles (from V8's code cache after the first, see
 * boot-script.ts) and calls once, before any guest code. Its arguments are host callbacks (plain
 * functions in the guest): $0 log, $1 call, $2 callSync, $3 timer, $4 done, $5 allocation
 * failure; $6, the isolate's memoryMb; and $7, the SharedArrayBuffer console entries are stored
 * in (made into `storeLog` before the realm is hardened, which guards its typed-array
 * constructors). They are only ever held in closures here, never written to a global.
 * The returned array holds the five runtime functions the host keeps References to; the
 * runtime's functions do not use `this`, so calling them detached is fine. Everything crossing
 * back to the host goes through the sealed boundary (primitives only, see guest/boundary.ts).
 */
export const BOOT_SOURCE = `(function ($0, $1, $2, $3, $4, $5, $6, $7) {
'use strict';
const seal = (${sealBoundary.toString()})(${PRIMORDIALS_SOURCE});
const storeLog = (${makeLogStore.toString()})($7);
(${hardenGuestRealm.toString()})(${PRIMORDIALS_SOURCE}, seal.outgoing($5), $6);
const runtime = (${GUEST_RUNTIME_SOURCE})({ log: seal.outgoing($0), call: seal.outgoing($1), callSync: seal.outgoing($2), timer: seal.outgoing($3), done: seal.outgoing($4), storeLog });
return [seal.incoming(runtime.install), seal.incoming(runtime.start), seal.incoming(runtime.settle), seal.incoming(runtime.fire), seal.incoming(runtime.stall)];
})`
