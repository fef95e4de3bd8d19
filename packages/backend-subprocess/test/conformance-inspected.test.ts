import { describeBackendConformance } from '@cordon/conformance'
import { describe } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'

// The attacks, isolation and poisoning groups again with the inspector on for every run, in
// isolated-vm engine children (where the inspector is offered to untrusted code: a failure of
// isolated-vm's inspector ends only the child): a CPU profile (an inspector session open on the
// guest's isolate throughout), and a debugger socket that nobody connects to. Enabling it must
// give the guest nothing. Not where the engine has no inspector (Node 26).
const factory = async () => {
  const backend = createSubprocessBackend({ engine: 'isolated-vm' })
  await backend.warm()
  return backend
}

describe.runIf(createSubprocessBackend({ engine: 'isolated-vm' }).capabilities.inspector === true)('with the inspector on', () => {
  describe('cpuProfile', () => {
    describeBackendConformance(factory, {
      groups: ['attacks', 'isolation', 'poisoning'],
      // Every 10 ms: at the default 100 µs, V8's sampler walking a stack 10,000 frames deep made
      // the deep-recursion attack run past its 5 s deadline (it ended TIMEOUT, safely).
      sandboxDefaults: { cpuProfile: { samplingIntervalUs: 10_000 } },
    })
  })
  describe('a debugger socket', () => {
    describeBackendConformance(factory, {
      groups: ['attacks', 'isolation'],
      sandboxDefaults: { inspector: { onListening: () => undefined } },
    })
  })
})
