import { describeFaults } from '@cordon/conformance'
import { describe } from 'vitest'
import { createSubprocessBackend } from '../src/index.js'
import { nodeChildren } from './helpers.js'

const linux = process.platform === 'linux'

// The children are the runners: found below this process, killed with SIGKILL from outside.
describe.runIf(linux).each(['isolated-vm', 'quickjs'] as const)('engine %s', (engine) => {
  describeFaults({
    runners: () => nodeChildren(process.pid, 'engine-child.js'),
    kill: (pid) => {
      process.kill(pid, 'SIGKILL')
    },
    oneRunPerRunner: () => createSubprocessBackend({ engine, runsPerChild: 1, maxChildren: 2 }),
  })
})

// No warm pool: the child that appears for a run is that run's.
describe.runIf(linux)('engine node-vm', () => {
  describeFaults({
    runners: () => nodeChildren(process.pid, 'child.js'),
    kill: (pid) => {
      process.kill(pid, 'SIGKILL')
    },
    oneRunPerRunner: () => createSubprocessBackend({ engine: 'node-vm', poolSize: 0 }),
  })
})
