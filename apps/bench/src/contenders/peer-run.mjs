// The peer `run` (vercel-labs) through `createRunner`, which its README recommends for repeated
// runs (shared limits). Every run gets a fresh QuickJS context (quickjs-ng through quickjs-wasi)
// in a worker thread that the package keeps and reuses between runs.
import { createRequire } from 'node:module'
import { untilIdle } from '../idle.mjs'
import { ECHO_SUM, FIB_N, FIB_RESULT, GUEST_SOURCES, TOOL_CALLS, expectEqual } from '../workloads.mjs'

export const peerRunContenders = [
  {
    id: 'peer-run',
    load: async () => {
      const { createRunner } = await import('run')
      const version = createRequire(import.meta.url)('run/package.json').version
      // Its default allows 256 host calls per run; W2 makes 1,000.
      const runner = createRunner({ limits: { timeoutMs: 60_000, maxBridgeRequests: TOOL_CALLS } })
      const run = async (source, input = {}) => {
        const r = await runner.run({ source, ...input })
        if (r.status !== 'completed') throw new Error(`run: status ${r.status}`)
        return r.value
      }
      return {
        id: 'peer-run',
        name: `run ${version} (peer, createRunner)`,
        engine: 'quickjs',
        // A run's worker resets after the result is handed over: wait as for cordon's worker threads.
        ready: () => untilIdle(5),
        W1: async () => expectEqual('W1', await run('return 1 + 2'), 3),
        W2: async () =>
          expectEqual(
            'W2',
            await run(
              GUEST_SOURCES.echoLoop((arg) => `host.echo(${arg})`),
              { hostFunctions: { host: { echo: (i) => i } } },
            ),
            ECHO_SUM,
          ),
        W3: async () => expectEqual('W3', await run(`${GUEST_SOURCES.fib}\nreturn fib(${FIB_N})`), FIB_RESULT),
        W4: `run ${version} takes no input values: data reaches the guest only as source text (256 KiB cap) or through a host call`,
        W5: `run ${version} writes the guest's console to the host process's stdout/stderr; no API captures it`,
        W6: true,
        dispose: async () => {},
      }
    },
  },
]
