// The peer @sebastianwessel/quickjs through its documented API: `runSandboxed` (a new QuickJS
// runtime and context per run) with `evalCode` of an ES module. It runs on the same QuickJS build
// as cordon's QuickJS backend (release-sync), not its default quickjs-ng, so the engines match.
import { createRequire } from 'node:module'
import { ECHO_SUM, FIB_N, FIB_RESULT, GUEST_SOURCES, bigData, checkBigData, checkLogLines, expectEqual } from '../workloads.mjs'

const OPTIONS = { memoryLimit: 128 * 1024 * 1024, maxStackSize: 256 * 1024, executionTimeout: 60_000 }

export const peerContenders = [
  {
    id: 'peer-sebastianwessel',
    load: async () => {
      const { loadQuickJs } = await import('@sebastianwessel/quickjs')
      const version = createRequire(import.meta.url)('@sebastianwessel/quickjs/package.json').version
      const variant = (await import('@jitl/quickjs-wasmfile-release-sync')).default
      const { runSandboxed } = await loadQuickJs(variant)
      const run = async (code, options = {}) => {
        const result = await runSandboxed(async ({ evalCode }) => evalCode(code), { ...OPTIONS, ...options })
        if (!result.ok) throw new Error(`${result.error.name}: ${result.error.message}`)
        return result.data
      }
      return {
        id: 'peer-sebastianwessel',
        name: `@sebastianwessel/quickjs ${version} (peer)`,
        engine: 'quickjs',
        // These take a second or more per run here; --quick leaves them out to stay under a minute.
        skipInQuick: { W2: 'about a second per run', W4: 'seconds per run', W5: 'seconds per run' },
        W1: async () => expectEqual('W1', await run('export default 1 + 2'), 3),
        W2: async () => {
          // A module has no top-level `return`: its result is the default export.
          const code = GUEST_SOURCES.echoLoop((arg) => `env.echo(${arg})`).replace('return s', 'export default s')
          expectEqual('W2', await run(code, { env: { echo: async (i) => i } }), ECHO_SUM)
        },
        W3: async () => expectEqual('W3', await run(`${GUEST_SOURCES.fib}\nexport default fib(${FIB_N})`), FIB_RESULT),
        W4: async () => checkBigData(await run('export default env.data', { env: { data: bigData() } })),
        W5: async () => {
          const lines = []
          const log = (...parts) => void lines.push(parts.join(' '))
          await run(`${GUEST_SOURCES.logLoop('console.log')}\nexport default 0`, { console: { log } })
          checkLogLines(lines)
        },
        W6: true,
        dispose: async () => {},
      }
    },
  },
]
