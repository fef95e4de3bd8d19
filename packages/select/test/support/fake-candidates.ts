/**
 * Fake backends and candidates for select's tests. The engine is the repository's one fake
 * backend (node:vm, in the conformance package's tests) — NOT a security boundary, only a
 * quick way to really run the guest runtime and its tools.
 */
import type { BackendCapabilities, ExecuteOutcome, ExecuteRequest, SandboxBackend } from '@cordon/core/backend'
import { createVmBackend } from '../../../conformance/test/fakes/vm-backend.js'
import type { BackendCandidate } from '../../src/index.js'

export const BASE_CAPABILITIES: BackendCapabilities = {
  isolation: 'v8-isolate',
  memoryLimit: false,
  syncHostCalls: false,
  survivesGuestOom: false,
  cpuTime: false,
  heapStats: false,
  networkIsolation: false,
  sessions: false,
  preemptive: false,
}

/** Everything a fake backend did, for assertions. */
export interface Ledger {
  created: number
  disposed: number
  /** The scripts each instance executed, probes included, in order. */
  scripts: string[]
  /** Options each instance was created with. */
  options: (object | undefined)[]
}

export interface FakeOptions {
  capabilities?: Partial<BackendCapabilities>
  /** Replaces the engine for a run; return undefined to run the code normally. */
  intercept?: (request: ExecuteRequest, runIndex: number) => ExecuteOutcome | Promise<ExecuteOutcome> | undefined
  /** Thrown by the factory. */
  factoryError?: Error
  /** The backend's `provenHere()`; absent: the backend has none. */
  provenHere?: () => unknown
}

export function fakeFactory(name: string, ledger: Ledger, fake: FakeOptions = {}) {
  return (options?: object): SandboxBackend => {
    if (fake.factoryError) throw fake.factoryError
    ledger.created++
    ledger.options.push(options)
    let runs = 0
    const engine = createVmBackend({ name })
    return {
      specificationVersion: 'v1',
      name,
      capabilities: { ...BASE_CAPABILITIES, ...fake.capabilities },
      ...(fake.provenHere !== undefined && { provenHere: fake.provenHere as () => string | undefined }),
      async execute(request) {
        ledger.scripts.push(request.script)
        const replaced = await fake.intercept?.(request, runs++)
        return replaced ?? engine.execute(request)
      },
      async dispose() {
        ledger.disposed++
        await engine.dispose()
      },
    }
  }
}

export function newLedger(): Ledger {
  return { created: 0, disposed: 0, scripts: [], options: [] }
}

/** A candidate whose module is served from memory. */
export function fakeCandidate(name: string, rank: number, fake: FakeOptions = {}): { candidate: BackendCandidate; ledger: Ledger } {
  const ledger = newLedger()
  const factory = fakeFactory(name, ledger, fake)
  return {
    ledger,
    candidate: {
      name,
      rank,
      module: `@fake/backend-${name}`,
      factory: 'createFakeBackend',
      install: `npm install @fake/backend-${name}`,
      load: async () => ({ createFakeBackend: factory }),
    },
  }
}

/** A candidate whose package does not exist: select really imports it and fails. */
export function missingCandidate(name: string, rank: number): BackendCandidate {
  return {
    name,
    rank,
    module: `@cordon-test-missing/backend-${name}`,
    factory: 'createMissingBackend',
    install: `npm install @cordon-test-missing/backend-${name}`,
  }
}

/** A candidate whose engine cannot load: every run resolves BACKEND_UNAVAILABLE with `message`. */
export function unavailableCandidate(name: string, rank: number, message: string) {
  return fakeCandidate(name, rank, {
    intercept: () => ({ ok: false, error: { code: 'BACKEND_UNAVAILABLE', message } }),
  })
}

/** True when a script is select's probe program rather than user code. */
export function isProbe(script: string): boolean {
  return script.includes('probe.echo')
}
