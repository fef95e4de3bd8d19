import type { BackendCapabilities } from '@cordon/core/backend'
import type { NetworkIsolationMode } from './options.js'

/** What this backend guarantees with these settings; every entry is explained in the README. */
export function subprocessCapabilities(networkIsolation: NetworkIsolationMode): BackendCapabilities {
  return Object.freeze({
    isolation: 'process',
    memoryLimit: true,
    // The child blocks on its pipe for the host's answer (child/host-link.ts).
    syncHostCalls: true,
    survivesGuestOom: true,
    cpuTime: true,
    heapStats: true,
    // Only a guarantee when asked for: with 'required' a child that can reach the network never runs.
    networkIsolation: networkIsolation === 'required',
    // One child process per session, kept from the first run to the last (session.ts).
    sessions: true,
    // Guest code runs in a child process, which is killed when a stopped run does not end.
    preemptive: true,
  })
}
