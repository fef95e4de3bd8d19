import type { BackendCapabilities } from '@cordon/core'

const BOUNDARY: Record<BackendCapabilities['isolation'], string> = {
  process: 'a locked-down child process',
  'process+v8-isolate': 'a fresh V8 isolate per run, inside a locked-down child process',
  'process+wasm': 'a fresh QuickJS instance per run, inside a locked-down child process',
  'v8-isolate': 'a V8 isolate per run, inside the host process',
  wasm: 'a QuickJS WebAssembly instance per run, inside the host process',
}

/** A subprocess backend that chose its engine names it after a run: the boundary it really has. */
const ENGINE_BOUNDARY: Record<string, string> = {
  'isolated-vm': BOUNDARY['process+v8-isolate'],
  quickjs: BOUNDARY['process+wasm'],
  'node-vm': 'a fresh node:vm context per run, in a locked-down child process of its own',
}

/**
 * What a backend protects, in the words a server owner asks about: which boundary stands
 * between guest and host, whether the host outlives a guest that runs out of memory, and
 * whether a busy guest can hold the host's event loop. Read from the capability manifest, and
 * from the engine a backend named after its probe run.
 */
export function describeProtection(capabilities: BackendCapabilities, engine?: string): string {
  const oom = capabilities.survivesGuestOom
    ? 'the host outlives a guest that runs out of memory'
    : 'an out-of-memory the engine cannot contain can take the host process down'
  const loop = capabilities.preemptive ? "a busy guest never holds the host's event loop" : "a busy guest can stall the host's event loop"
  const boundary =
    (capabilities.isolation === 'process' && engine !== undefined ? ENGINE_BOUNDARY[engine] : undefined) ?? BOUNDARY[capabilities.isolation]
  return `${boundary ?? capabilities.isolation}; ${oom}; ${loop}`
}
