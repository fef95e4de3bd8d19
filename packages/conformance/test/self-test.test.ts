/**
 * The suite tests itself: each deliberately broken backend must fail the checks that
 * guard the promise it breaks, while the correct reference backend passes them.
 */
import { describe, expect, it } from 'vitest'
import { conformanceChecks, conformanceGroups, describeBackendConformance } from '../src/describe.js'
import { runConformanceCheck } from '../src/runner.js'
import { CONFORMANCE_GROUPS, type BackendFactory, type ConformanceCheck, type ConformanceOptions } from '../src/types.js'
import {
  createClockIgnoringBackend,
  createEnvExposingBackend,
  createFetchExposingBackend,
  createHostExposingBackend,
  createLeakyGlobalsBackend,
  createLogHoldingBackend,
  createMemoryLeakingBackend,
  createSessionSharingBackend,
  createTimeoutIgnoringBackend,
  createToolRetryingBackend,
} from './fakes/broken-backends.js'
import { createVmBackend } from './fakes/vm-backend.js'
import { VM_LIMITATIONS } from './fakes/vm-limitations.js'
import type { SandboxBackend } from '@cordon/core/backend'

function check(name: string): ConformanceCheck {
  const found = conformanceChecks.find((c) => c.name === name)
  if (found === undefined) throw new Error(`no check named "${name}"`)
  return found
}

const LEAK_CHECK = 'many sequential runs keep host memory bounded and the sandbox working'

const BROKEN: { name: string; factory: BackendFactory; mustFail: string[]; options?: ConformanceOptions }[] = [
  {
    name: 'a backend that ignores the timeout while the guest waits',
    factory: createTimeoutIgnoringBackend,
    mustFail: [
      'TIMEOUT: a tool that never resolves',
      'TIMEOUT: a setTimeout longer than the deadline',
      'logs are kept when the run times out',
      'ABORTED: aborting the signal mid-run ends the run promptly, logs kept',
      'runs in flight when dispose() is called resolve ABORTED',
      'pause: ctx.interrupt ends the run at once with INTERRUPTED, its payload, the logs so far and a continuation',
    ],
  },
  {
    name: 'a backend that reuses one context (globals leak between runs)',
    factory: createLeakyGlobalsBackend,
    mustFail: [
      'globals, built-in changes and declarations of one run are gone in the next',
      "a run's globals and tools are gone in the next run",
      'Object.prototype pollution is invisible to the host and to the next run',
    ],
  },
  {
    name: 'a backend that exposes host functions and returns host objects to the guest',
    factory: createHostExposingBackend,
    mustFail: [
      'escape: everything reachable from the guest global',
      'escape: a tool function and its namespace',
      'escape: objects returned by tools',
      "values from tools are made of the guest's own objects",
      'attack: __lookupGetter__ prototype walks from runtime objects (vm2 GHSA-grj5-jjm8-h35p)',
    ],
  },
  {
    name: "a backend that copies the host's environment into the guest",
    factory: createEnvExposingBackend,
    mustFail: ['attack: no isolated-vm Reference, ExternalCopy or Callback is reachable (isolated-vm README)'],
  },
  {
    name: 'a backend that leaks 1 MB of host memory per run',
    factory: createMemoryLeakingBackend,
    mustFail: [LEAK_CHECK],
    // 200 runs leak 200 MB: far over the 40 MB slack, and quick.
    options: { lifecycleRuns: 200 },
  },
  {
    name: 'a backend that hands the logs over only when the run is over',
    factory: createLogHoldingBackend,
    mustFail: [
      'logs and tool calls arrive in the order they happened, and the result event is last and is the RunResult',
      'failed tool calls end in tool-error with the reason and the error the guest sees',
    ],
  },
  {
    name: "a backend that hands the guest the host's own fetch",
    factory: createFetchExposingBackend,
    mustFail: [
      'without the fetch option the guest has no fetch, Headers, Request or Response',
      'fetch attack: loopback in every spelling is refused without allowPrivateAddresses; unspecified and metadata addresses even with it',
    ],
  },
  {
    name: "a backend that drops the durable clock from the guest's setup",
    factory: createClockIgnoringBackend,
    mustFail: ['Date and Math.random: the same values under replay, and time moves with timers only'],
  },
  {
    name: 'a backend that retries every tool call once',
    factory: createToolRetryingBackend,
    mustFail: [
      'replay answers results and errors from the ledger, each resume of one continuation alike, calling no tool again',
      'resume with an answer: the paused call resolves with it, recorded calls are not made again, the rest runs live',
    ],
  },
  {
    name: 'a backend whose sessions share one context',
    factory: createSessionSharingBackend,
    mustFail: ['state never crosses sessions or reaches one-off runs'],
  },
]

for (const broken of BROKEN) {
  describe(broken.name, () => {
    for (const name of broken.mustFail) {
      it(`fails: ${name}`, async () => {
        const outcome = await runConformanceCheck(check(name), broken.factory, broken.options)
        expect(outcome.status).toBe('failed')
      })
      it(`while the reference backend passes it`, async () => {
        const outcome = await runConformanceCheck(check(name), () => createVmBackend(), broken.options)
        expect(outcome.status === 'failed' ? outcome.error : outcome.status).toBe('passed')
      })
    }
  })
}

describe('a backend that claims preemptive but runs guest code on the host thread', () => {
  // No fake backend here is preemptive (the reference one is node:vm on the host's thread), so the
  // passing side of these checks is the QuickJS worker mode's and the subprocess backend's own
  // conformance runs.
  const liar = (): SandboxBackend => {
    const backend = createVmBackend({ name: 'broken-claims-preemptive' })
    return { ...backend, capabilities: { ...backend.capabilities, preemptive: true } }
  }
  for (const name of [
    "the host's event loop keeps turning while a guest spins",
    'abort ends a spinning guest ABORTED at once, long before its deadline',
    'dispose() during a spin returns promptly and the run resolves ABORTED',
    'runs in flight alongside a spinning guest finish on time',
  ]) {
    it(`fails: ${name}`, async () => {
      const outcome = await runConformanceCheck(check(name), liar)
      expect(outcome.status).toBe('failed')
    })
  }
})

describe('the check lists', () => {
  it('has unique names and one list per group', () => {
    const names = conformanceChecks.map((c) => c.name)
    expect(new Set(names).size).toBe(names.length)
    expect(Object.keys(conformanceGroups).sort()).toEqual([...CONFORMANCE_GROUPS].sort())
    for (const [group, checks] of Object.entries(conformanceGroups)) {
      expect(checks.length).toBeGreaterThan(0)
      for (const c of checks) expect(c.group).toBe(group)
    }
  })
})

describe('runConformanceCheck', () => {
  const factory = () => createVmBackend()

  it('skips a check whose capability requirement the backend does not meet', async () => {
    const outcome = await runConformanceCheck(
      { group: 'limits', name: 'needs memory', requires: { memoryLimit: true }, run: () => {} },
      factory,
    )
    expect(outcome).toMatchObject({ status: 'skipped', reason: expect.stringContaining('memoryLimit') })
  })

  it('reports a throwing check as failed, with its error', async () => {
    const outcome = await runConformanceCheck(
      {
        group: 'values',
        name: 'throws',
        run: () => {
          throw new Error('nope')
        },
      },
      factory,
    )
    expect(outcome.status).toBe('failed')
    expect(outcome.status === 'failed' && (outcome.error as Error).message).toBe('nope')
  })

  it('fails a check that does not finish within its timeoutMs', async () => {
    const outcome = await runConformanceCheck({ group: 'values', name: 'hangs', timeoutMs: 100, run: () => new Promise(() => {}) }, factory)
    expect(outcome.status === 'failed' && String(outcome.error)).toContain('did not finish within 100 ms')
  })

  it('disposes sandboxes the check made with newSandbox', async () => {
    let disposed = 0
    const counting = () => {
      const backend = createVmBackend()
      const dispose = backend.dispose.bind(backend)
      return { ...backend, dispose: () => (disposed++, dispose()) }
    }
    const outcome = await runConformanceCheck(
      {
        group: 'lifecycle',
        name: 'extra sandboxes',
        run: async (ctx) => {
          await ctx.newSandbox()
          await ctx.newSandbox()
        },
      },
      counting,
    )
    expect(outcome.status).toBe('passed')
    expect(disposed).toBe(3)
  })
})

describe('knownGaps', () => {
  it('refuses a name that is no check of the groups registered', () => {
    expect(() =>
      describeBackendConformance(() => createVmBackend(), { groups: ['values'], knownGaps: { 'no such check': 'why' } }),
    ).toThrow(/knownGaps names no check/)
  })
})

// Gaps on record: the reference's two limitations in the errors group are registered as tests
// that must fail (it.fails), titled with why; the rest of the group must pass as usual.
const ERRORS_GAPS = [
  'a guest error stack shows no host paths',
  'engine work the host does not see (an async WebAssembly compile, a refused import()) is not a deadlock',
]
describe('knownGaps on the node:vm reference', () => {
  describeBackendConformance(() => createVmBackend(), {
    groups: ['errors'],
    knownGaps: Object.fromEntries(ERRORS_GAPS.map((name) => [name, VM_LIMITATIONS.get(name)!.reason])),
  })
})
