import { describe } from 'vitest'
import { conformanceGroups, describeChecks } from '../src/describe.js'
import { applicableChecks } from '../src/runner.js'
import type { ConformanceGroup } from '../src/types.js'
import { createVmBackend } from './fakes/vm-backend.js'
import { itStillFails, VM_LIMITATIONS, VM_NOT_RUN, VM_QUIET_GROUPS } from './fakes/vm-limitations.js'

// What node:vm's reference run needs a machine of its own for (see VM_QUIET_GROUPS and VM_LIMITATIONS).
const capabilities = createVmBackend().capabilities
for (const group of VM_QUIET_GROUPS as ConformanceGroup[]) {
  const checks = applicableChecks(conformanceGroups[group], capabilities).filter(
    (check) => !VM_LIMITATIONS.has(check.name) && !VM_NOT_RUN.has(check.name),
  )
  describeChecks(`vm-reference: ${group}`, checks, () => createVmBackend())
}

// The limitations node:vm shows by being late: measured with nothing else on the machine.
describe('vm-reference: known limitations', () => {
  itStillFails(true)
})
