// cordon's backends, each driven through `createSandbox(backend).run` as a user would.
import { createSandbox } from '@cordon/core'
import { untilIdle } from '../idle.mjs'
import { reasonOf } from '../reason.mjs'
import {
  CORDON_PROGRAMS,
  ECHO_SUM,
  FIB_RESULT,
  LOG_LINES,
  TOOL_CALLS,
  bigData,
  checkBigData,
  checkLogLines,
  expectEqual,
} from '../workloads.mjs'

const BASE = { timeoutMs: 60_000, memoryMb: 128 }
const echoTools = { 'host.echo': { execute: (i) => i } }

/** Workload functions for one sandbox; shared with the no-op backend in core-only.mjs. */
export function sandboxWorkloads(sandbox) {
  const run = async (code, options) => {
    const r = await sandbox.run(code, { ...BASE, ...options })
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
    return r
  }
  return {
    W1: async () => expectEqual('W1', (await run(CORDON_PROGRAMS.W1)).value, 3),
    W2: async () => expectEqual('W2', (await run(CORDON_PROGRAMS.W2, { tools: echoTools, maxToolCalls: TOOL_CALLS })).value, ECHO_SUM),
    W3: async () => expectEqual('W3', (await run(CORDON_PROGRAMS.W3)).value, FIB_RESULT),
    W4: async () => checkBigData((await run(CORDON_PROGRAMS.W4, { globals: { data: bigData() }, maxOutputBytes: 8 * 1024 * 1024 })).value),
    W5: async () => {
      const r = await run(CORDON_PROGRAMS.W5, { maxLogEntries: LOG_LINES })
      checkLogLines(r.logs.map((entry) => entry.message))
    },
    W6: true,
  }
}

/** The package's factory, loaded lazily so that a backend that cannot load here is reported "unavailable" (a failure). */
async function factory(pkg, name) {
  const mod = await import(pkg)
  return mod[name]
}

async function contender({ id, name, engine, pkg, factoryName, options, note, ready, skipInQuick }) {
  try {
    const backend = (await factory(pkg, factoryName))(options)
    const sandbox = createSandbox(backend)
    const probe = await sandbox.run('return 1 + 2', BASE)
    if (!probe.ok) {
      await sandbox.dispose()
      return { id, name, engine, unavailable: reasonOf(`${probe.error.code}: ${probe.error.message}`) }
    }
    return {
      id,
      name,
      engine,
      note,
      skipInQuick,
      sandbox,
      ready: ready?.(backend),
      ...sandboxWorkloads(sandbox),
      dispose: () => sandbox.dispose(),
    }
  } catch (error) {
    return { id, name, engine, unavailable: reasonOf(error) }
  }
}

// Pooled in-process backends refill their pool after a run (a WASM instance or an isolate takes
// a few ms, tens on a loaded machine). Before each timed sample the runner awaits `ready`, here
// until the event loop is idle, so a sample measures a run that finds its pool ready, as an
// application's next request would. ivm finishes an isolate on another thread: wait a bit longer.
const settle = (minMs) => () => () => untilIdle(minMs)

// Without a pool the run does the same work as with one; --quick measures W1 only (time).
const SAME_WORK = 'the same work as with a pool'
const quickW1Only = { W2: SAME_WORK, W3: SAME_WORK, W4: SAME_WORK, W5: SAME_WORK, W6: SAME_WORK }

export const cordonContenders = [
  {
    id: 'cordon-quickjs',
    load: () =>
      contender({
        id: 'cordon-quickjs',
        name: 'cordon QuickJS (worker threads, pool 1, default)',
        engine: 'quickjs',
        pkg: '@cordon/backend-quickjs',
        factoryName: 'createQuickJSBackend',
        ready: settle(5),
      }),
  },
  {
    id: 'cordon-quickjs-inline',
    load: () =>
      contender({
        id: 'cordon-quickjs-inline',
        name: "cordon QuickJS (thread: 'inline', pool 1)",
        engine: 'quickjs',
        pkg: '@cordon/backend-quickjs',
        factoryName: 'createQuickJSBackend',
        options: { thread: 'inline' },
        ready: settle(5),
      }),
  },
  {
    id: 'cordon-quickjs-nopool',
    load: () =>
      contender({
        id: 'cordon-quickjs-nopool',
        name: 'cordon QuickJS (poolSize 0)',
        engine: 'quickjs',
        pkg: '@cordon/backend-quickjs',
        factoryName: 'createQuickJSBackend',
        options: { poolSize: 0 },
        skipInQuick: quickW1Only,
      }),
  },
  {
    id: 'cordon-ivm',
    load: () =>
      contender({
        id: 'cordon-ivm',
        name: 'cordon ivm (pool 2, default)',
        engine: 'ivm',
        pkg: '@cordon/backend-ivm',
        factoryName: 'createIvmBackend',
        ready: settle(15),
      }),
  },
  {
    id: 'cordon-ivm-nopool',
    load: () =>
      contender({
        id: 'cordon-ivm-nopool',
        name: 'cordon ivm (poolSize 0)',
        engine: 'ivm',
        pkg: '@cordon/backend-ivm',
        factoryName: 'createIvmBackend',
        options: { poolSize: 0 },
        skipInQuick: quickW1Only,
      }),
  },
  {
    id: 'cordon-subprocess',
    load: () =>
      contender({
        id: 'cordon-subprocess',
        name: 'cordon subprocess (engine children, default)',
        engine: 'subprocess',
        pkg: '@cordon/backend-subprocess',
        factoryName: 'createSubprocessBackend',
        note: 'a fresh isolate per run (QuickJS where isolated-vm does not load) inside long-lived locked-down children',
        ready: settle(15),
      }),
  },
  {
    id: 'cordon-subprocess-node-vm',
    load: () =>
      contender({
        id: 'cordon-subprocess-node-vm',
        name: "cordon subprocess (engine: 'node-vm', warm pool 2)",
        engine: 'subprocess',
        pkg: '@cordon/backend-subprocess',
        factoryName: 'createSubprocessBackend',
        options: { engine: 'node-vm' },
        // A child takes tens of ms to start: wait (untimed) until the pool is full again.
        ready: (backend) => () => backend.warm(BASE.memoryMb),
      }),
  },
  {
    id: 'cordon-subprocess-nopool',
    load: () =>
      contender({
        id: 'cordon-subprocess-nopool',
        name: "cordon subprocess (engine: 'node-vm', poolSize 0)",
        engine: 'subprocess',
        pkg: '@cordon/backend-subprocess',
        factoryName: 'createSubprocessBackend',
        options: { engine: 'node-vm', poolSize: 0 },
        skipInQuick: quickW1Only,
      }),
  },
]
