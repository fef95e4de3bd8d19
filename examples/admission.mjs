// Admission control: a sandbox that takes at most 2 runs at once. A third run waits up to
// maxQueueMs for a place; past that (or with no wait allowed) it ends BUSY without starting.
//   node examples/admission.mjs
import assert from 'node:assert/strict'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const sandbox = createSandbox(createQuickJSBackend(), { maxConcurrentRuns: 2, maxQueueMs: 200 })

// A slow tool keeps two runs in flight until we let them go.
let letGo
const gate = new Promise((resolve) => (letGo = resolve))
let calls = 0
const tools = { 'report.build': { execute: () => (calls++, gate.then(() => 'report ready')) } }
const slow = [sandbox.run('return await report.build()', { tools }), sandbox.run('return await report.build()', { tools })]
while (calls < 2) await new Promise((resolve) => setTimeout(resolve, 5))

// Both places are taken: this run waits 200 ms for one, then gives up without starting.
const third = await sandbox.run('return "never started"')
console.log('third run:', third.ok ? third.value : third.error.code)
assert.equal(third.ok ? undefined : third.error.code, 'BUSY')

// A run that is waiting when a place comes free starts then.
const waiting = sandbox.run('return "got a place"')
letGo()
for (const r of await Promise.all(slow)) assert.equal(r.ok && r.value, 'report ready')
const fourth = await waiting
console.log('fourth run:', fourth.ok ? fourth.value : fourth.error.code)
await sandbox.dispose()
