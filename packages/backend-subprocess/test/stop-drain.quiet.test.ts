import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Sandbox } from '@cordon/core'
import { errorOf, open } from './helpers.js'

let sandbox: Sandbox

beforeAll(async () => {
  ;({ sandbox } = await open({ poolSize: 1 }))
})
afterAll(async () => {
  await sandbox.dispose()
})

/** Blocks the host's event loop, as a busy host (or a loaded CI machine) does. */
function busyWait(ms: number): void {
  const end = performance.now() + ms
  while (performance.now() < end) {
    // spin
  }
}

// The child writes the log long before the deadline, but the host is too busy to read its pipe
// until after the deadline timers are due. The log must still be in the TIMEOUT result.
// Quiet: the point needs the child to get a CPU within the host's 600 ms block, which a machine
// busy with other suites did not always give it (the log was then never written, not lost).
it('logs written before the deadline survive a host that reads them only after it', async () => {
  const tools = {
    't.blockHost': {
      execute: () => {
        setImmediate(() => busyWait(600))
        return 'go'
      },
    },
  }
  const result = await sandbox.run("await t.blockHost()\nconsole.log('before')\nwhile (true) {}", { tools, timeoutMs: 300 })
  expect(errorOf(result).code).toBe('TIMEOUT')
  expect(result.logs.map((entry) => entry.message)).toEqual(['before'])
})
