/**
 * Installs the allocation guard (see allocation-guard-source.ts) in a guest context. The
 * callback is handed to guest-realm code only, which keeps it in a closure: guest code can
 * never reach it, nor any other function of the child's realm.
 */
import vm from 'node:vm'
import { ALLOCATION_GUARD_FILENAME, ALLOCATION_GUARD_SOURCE } from '../guest/allocation-guard-source.js'

/** Called with the engine's message each time a guest allocation fails, caught or not. */
export type AllocationFailureHandler = (message: string) => void

/** `primordials`: the guest realm's, captured before any guest code ran (see bridge-source.ts). */
export function installAllocationGuard(context: vm.Context, primordials: unknown, onFailure: AllocationFailureHandler): void {
  const guard = vm.runInContext(ALLOCATION_GUARD_SOURCE, context, { filename: ALLOCATION_GUARD_FILENAME }) as (
    p: unknown,
    report: (message: unknown) => void,
  ) => void
  guard(primordials, (message) => onFailure(String(message)))
}
