/**
 * The whole suite against the node:vm reference backend. node:vm is no security boundary;
 * the few checks it cannot pass are listed below, and a test keeps that list honest.
 */
import { describe, expect, it } from 'vitest'
import { applicableChecks, conformanceChecks, conformanceGroups, describeChecks, runConformanceCheck } from '../src/index.js'
import type { ConformanceGroup } from '../src/index.js'
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
])

for (const group of Object.keys(conformanceGroups) as ConformanceGroup[]) {
  const checks = applicableChecks(conformanceGroups[group], capabilities).filter((check) => !VM_LIMITATIONS.has(check.name))
  describeChecks(`vm-reference: ${group}`, checks, factory)
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
