/**
 * The whole suite against the node:vm reference backend. node:vm is no security boundary;
 * the few checks it cannot pass are listed below, and a test keeps that list honest.
 */
import { describe, expect, it } from 'vitest'
import { conformanceChecks, conformanceGroups, describeChecks } from '../src/describe.js'
import { applicableChecks, runConformanceCheck } from '../src/runner.js'
import type { ConformanceGroup } from '../src/types.js'
import { createVmBackend } from './fakes/vm-backend.js'

const factory = () => createVmBackend()
// node:vm has no memory cap: the MEMORY_LIMIT checks do not apply (the capabilities group checks UNSUPPORTED).
const capabilities = createVmBackend().capabilities

/** Checks node:vm fails by its nature, with the reason. */
const VM_LIMITATIONS = new Map<string, string>([
  ['a guest error stack shows no host paths', 'V8 stacks in a vm context include the host frames that called into it'],
  [
    "a tool's error reaches the guest as a catchable Error with its message and no host stack",
    'V8 stacks in a vm context include the host frames that called into it',
  ],
  [
    'dos: built-ins walking a huge sparse length or array-like end by the deadline',
    "node:vm runs the guest on the host's thread, and V8 honours its timeout only between instructions, not inside a built-in",
  ],
])

/** Checks not run on node:vm at all, with the reason. */
const VM_NOT_RUN = new Map<string, string>([
  [
    'a get on Object.prototype, then a new global: the run ends with its value, a TypeError or BACKEND_CRASHED, and the next run works',
    "the vm context lives in the test runner's own process, and V8 aborts the whole process on the invalid descriptor Node's vm interceptor hands it",
  ],
  [
    'attack: tool rejections the guest ignores reach no host unhandledRejection (vm2 GHSA-2v2p-6j97-cjg9)',
    "a vm context shares the host's promise rejection tracking: the guest's own unhandled rejection would be reported by the test runner",
  ],
])

for (const group of Object.keys(conformanceGroups) as ConformanceGroup[]) {
  const checks = applicableChecks(conformanceGroups[group], capabilities).filter(
    (check) => !VM_LIMITATIONS.has(check.name) && !VM_NOT_RUN.has(check.name),
  )
  // A group with nothing that applies to node:vm (preemption: it is not preemptive) registers no
  // suite: vitest fails an empty one.
  if (checks.length > 0) describeChecks(`vm-reference: ${group}`, checks, factory)
}

describe('vm-reference: known limitations', () => {
  for (const [name, reason] of VM_LIMITATIONS) {
    it(`still fails: ${name} (${reason})`, async () => {
      const check = conformanceChecks.find((c) => c.name === name)
      expect(check, `no check named "${name}"`).toBeDefined()
      const outcome = await runConformanceCheck(check!, factory)
      expect(outcome.status).toBe('failed')
    })
  }
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
