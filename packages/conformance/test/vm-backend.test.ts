/**
 * The whole suite against the node:vm reference backend. node:vm is no security boundary;
 * the few checks it cannot pass are listed below, and a test keeps that list honest.
 */
import { describe, expect, it } from 'vitest'
import { conformanceChecks, conformanceGroups, describeChecks } from '../src/describe.js'
import { applicableChecks } from '../src/runner.js'
import type { ConformanceGroup } from '../src/types.js'
import { createVmBackend } from './fakes/vm-backend.js'
import { itStillFails, VM_LIMITATIONS, VM_NOT_RUN, VM_QUIET_GROUPS } from './fakes/vm-limitations.js'

const factory = () => createVmBackend()
// node:vm has no memory cap: the MEMORY_LIMIT checks do not apply (the capabilities group checks UNSUPPORTED).
const capabilities = createVmBackend().capabilities

for (const group of Object.keys(conformanceGroups) as ConformanceGroup[]) {
  if (VM_QUIET_GROUPS.includes(group)) continue
  const checks = applicableChecks(conformanceGroups[group], capabilities).filter(
    (check) => !VM_LIMITATIONS.has(check.name) && !VM_NOT_RUN.has(check.name),
  )
  // A group with nothing that applies to node:vm (preemption: it is not preemptive) registers no
  // suite: vitest fails an empty one.
  if (checks.length > 0) describeChecks(`vm-reference: ${group}`, checks, factory)
}

describe('vm-reference: known limitations', () => {
  itStillFails(false)
})

describe('vm-reference: checks not run', () => {
  it('name checks that exist', () => {
    for (const name of VM_NOT_RUN.keys())
      expect(
        conformanceChecks.some((c) => c.name === name),
        `no check named "${name}"`,
      ).toBe(true)
  })
})
