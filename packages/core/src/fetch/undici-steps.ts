/**
 * Loading undici's files without holding the host's event loop. Requiring the guarded fetch's
 * three entry files loads 36 modules in one synchronous block (20–30 ms on a fast 2-vCPU VM, 130
 * on a slow one); here they are required one per turn of the event loop, each after the files it
 * requires, so each turn loads one file (the longest, node:http2, ~3 ms). The entries then find
 * everything loaded. A file that is not where this list says (another undici) is left to its
 * entry, which loads it as before; test/undici-steps.test.ts says when the list is out of date.
 */

/** The modules the three entries load, for undici 7.30, in the order they finish loading. */
export const UNDICI_STEPS: readonly string[] = [
  'undici/lib/core/errors.js',
  'undici/lib/core/symbols.js',
  'node:buffer',
  'node:events',
  'undici/lib/handler/wrap-handler.js',
  'undici/lib/dispatcher/dispatcher.js',
  'node:assert',
  'node:http',
  'node:stream',
  'node:net',
  'node:querystring',
  'undici/lib/util/timers.js',
  'undici/lib/core/constants.js',
  'undici/lib/core/tree.js',
  'undici/lib/core/util.js',
  'undici/lib/handler/unwrap-handler.js',
  'undici/lib/dispatcher/dispatcher-base.js',
  'undici/lib/util/stats.js',
  'undici/lib/dispatcher/fixed-queue.js',
  'undici/lib/dispatcher/pool-base.js',
  'node:diagnostics_channel',
  'node:util',
  'undici/lib/core/diagnostics.js',
  'undici/lib/core/request.js',
  'undici/lib/core/connect.js',
  'undici/lib/llhttp/utils.js',
  'undici/lib/llhttp/constants.js',
  'undici/lib/dispatcher/client-h1.js',
  'node:http2',
  'undici/lib/dispatcher/client-h2.js',
  'undici/lib/dispatcher/client.js',
  'undici/lib/dispatcher/pool.js',
  'undici/lib/dispatcher/agent.js',
  'node:async_hooks',
  'undici/lib/api/readable.js',
  'undici/lib/api/api-request.js',
]

type AgentFile = typeof import('undici/lib/dispatcher/agent.js').default
type ConnectFile = typeof import('undici/lib/core/connect.js').default
type RequestFile = typeof import('undici/lib/api/api-request.js').default

/** What the three entry files export. */
export interface UndiciFiles {
  Agent: AgentFile
  buildConnector: ConnectFile
  request: RequestFile
}

const AGENT = 'undici/lib/dispatcher/agent.js'
const CONNECT = 'undici/lib/core/connect.js'
const REQUEST = 'undici/lib/api/api-request.js'

/**
 * The three entries, after UNDICI_STEPS one per turn, all through one CommonJS loader (so that
 * each file is loaded once). Where there is no such loader, by `import()` all at once.
 */
export async function loadUndiciFiles(): Promise<UndiciFiles> {
  let require: ((id: string) => unknown) | undefined
  try {
    require = (await import('node:module')).createRequire(import.meta.url)
  } catch {
    require = undefined
  }
  if (require === undefined) {
    const [agent, connect, request] = await Promise.all([
      import('undici/lib/dispatcher/agent.js'),
      import('undici/lib/core/connect.js'),
      import('undici/lib/api/api-request.js'),
    ])
    return { Agent: agent.default, buildConnector: connect.default, request: request.default }
  }
  for (const step of UNDICI_STEPS) {
    await new Promise((resolve) => setImmediate(resolve))
    try {
      require(step)
    } catch {
      // Not in this undici: its entry below loads what it needs.
    }
  }
  return { Agent: require(AGENT) as AgentFile, buildConnector: require(CONNECT) as ConnectFile, request: require(REQUEST) as RequestFile }
}
