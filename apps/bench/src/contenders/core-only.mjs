// @cordon/core with a no-op backend: what core itself costs around a run — option checks, code
// normalization (parse, strip types, wrap), the setup text with the globals' wire form, the tool
// bridge and the log collector, decoding the result — with no engine at all.
import { createSandbox } from '@cordon/core'
import { decodeValue, encodeValue } from '@cordon/core/backend'
import { ECHO_SUM, LOG_LINES, TOOL_CALLS, bigData } from '../workloads.mjs'
import { sandboxWorkloads } from './cordon.mjs'

const NO_ENGINE = 'no engine: the no-op backend does not execute code'

/**
 * Answers each program without running it: the value the real guest would return, and for W2
 * and W5 the same traffic through `ToolBridge` that a real guest causes.
 */
function noopBackend() {
  const bigWire = encodeValue(bigData(), Number.MAX_SAFE_INTEGER, 'the result')
  return {
    specificationVersion: 'v1',
    name: 'noop',
    capabilities: {
      isolation: 'wasm',
      // Nothing runs, so there is nothing to cap; claiming it lets core accept the same options.
      memoryLimit: true,
      syncHostCalls: false,
      survivesGuestOom: false,
      cpuTime: false,
      heapStats: false,
      networkIsolation: false,
      sessions: false,
      preemptive: false,
    },
    async execute(request) {
      if (request.script.includes('host.echo')) {
        let s = 0
        for (let i = 0; i < TOOL_CALLS; i++)
          s += decodeValue(await request.host.callTool('host.echo', encodeValue(i, 64, 'tool arguments')))
        if (s !== ECHO_SUM) throw new Error(`noop W2 summed ${s}`)
        return { ok: true, value: encodeValue(s, 64, 'the result') }
      }
      if (request.script.includes('console.log')) {
        for (let i = 0; i < LOG_LINES; i++) request.host.log('log', `line ${i}`)
        return { ok: true, value: encodeValue(LOG_LINES, 64, 'the result') }
      }
      if (request.script.includes('return data')) return { ok: true, value: bigWire }
      return { ok: true, value: encodeValue(3, 64, 'the result') }
    },
    async dispose() {},
  }
}

export const coreOnlyContenders = [
  {
    id: 'core-only',
    load: async () => {
      const sandbox = createSandbox(noopBackend())
      const work = sandboxWorkloads(sandbox)
      return {
        id: 'core-only',
        name: '@cordon/core alone (no-op backend)',
        engine: 'core',
        note: 'createSandbox(noopBackend).run: normalization, setup, bridges and result decoding only',
        ...work,
        W3: NO_ENGINE,
        dispose: () => sandbox.dispose(),
      }
    },
  },
]
