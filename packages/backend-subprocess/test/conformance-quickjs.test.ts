import { describeBackendConformance, SHARED_GROUPS, type ConformanceGroup } from '@cordon/conformance'
import { createSubprocessBackend } from '../src/index.js'

/**
 * Groups whose checks one side alone decides — the QuickJS engine and guest runtime (attacks,
 * poisoning, isolation, normalization, errors, modules) or the host (fetch's guard, durable runs'
 * ledger, admission, traces) — and which the parts of this mode already pass on their own: QuickJS
 * in worker threads and inline (@cordon/backend-quickjs) runs the same engine and guest runtime,
 * and the isolated-vm engine children (conformance-isolated-vm.test.ts) the same channel and host.
 */
const DECIDED_BY_ONE_SIDE: readonly ConformanceGroup[] = [
  'attacks',
  'poisoning',
  'isolation',
  'normalization',
  'errors',
  'modules',
  'fetch',
  'durable',
  'admission',
  'traces',
]

// Long-lived children, each hosting a fresh QuickJS instance per run (in the child's worker
// threads): the groups where the two hops meet (values, logs, tools and sync calls, limits and
// stops, sessions, events, concurrency, lifecycle, dos). Warmed like an application would at
// startup: the first child starts and proves the engine loads.
// The two leak checks measure the host's memory, which holds only the channel to the children:
// conformance-isolated-vm.test.ts proves it over 1,000 runs and 500 sessions through the same
// channel. Here 300 runs and 200 sessions prove the QuickJS engine children keep working.
describeBackendConformance(
  async () => {
    const backend = createSubprocessBackend({ engine: 'quickjs' })
    await backend.warm()
    return backend
  },
  { groups: SHARED_GROUPS.filter((group) => !DECIDED_BY_ONE_SIDE.includes(group)), lifecycleRuns: 300, sessionChurn: 200 },
)
