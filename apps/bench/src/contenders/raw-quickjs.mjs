// quickjs-emscripten by hand (the same release-sync variant cordon uses): a new runtime and
// context per run, tools through its raw promise bridge (newPromise + executePendingJobs).
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { ECHO_SUM, FIB_N, FIB_RESULT, GUEST_SOURCES, bigDataJson, checkBigData, checkLogLines, expectEqual } from '../workloads.mjs'

const MEMORY_BYTES = 128 * 1024 * 1024
const STACK_BYTES = 256 * 1024

export async function loadVariant() {
  return (await import('@jitl/quickjs-wasmfile-release-sync')).default
}

/** The variant's WASM module, compiled once (what quickjs-emscripten compiles on its own when given none). */
export async function compileWasm() {
  const require = createRequire(import.meta.url)
  return WebAssembly.compile(await readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))
}

/** A fresh runtime + context in `module`; `close()` frees both. */
export function fresh(module) {
  const runtime = module.newRuntime()
  runtime.setMemoryLimit(MEMORY_BYTES)
  runtime.setMaxStackSize(STACK_BYTES)
  const context = runtime.newContext()
  return { runtime, context, close: () => (context.dispose(), runtime.dispose()) }
}

/** Evaluates `code` and returns the result as a host value through `read` (the handle is freed). */
function evalWith(context, code, read) {
  const handle = context.unwrapResult(context.evalCode(code))
  try {
    return read(handle)
  } finally {
    handle.dispose()
  }
}

function defineFunction(context, name, fn) {
  const handle = context.newFunction(name, fn)
  context.setProp(context.global, name, handle)
  handle.dispose()
}

/**
 * Each workload's work inside one fresh engine (`fresh(module)`), returning what comes out of
 * QuickJS. Shared with raw-quickjs-worker-thread.mjs, so that the worker does exactly this work.
 */
export const IN_ENGINE = {
  W1: ({ context }) => evalWith(context, '(function () { return 1 + 2 })()', (h) => context.getNumber(h)),
  /** `ask(i)` is the host's echo: a host promise of its answer. */
  W2: async ({ runtime, context }, ask) => {
    // The raw promise bridge: the host function returns a QuickJS promise and settles it when
    // the host's own (async) work is done, then runs QuickJS's pending jobs.
    defineFunction(context, 'echo', (arg) => {
      const deferred = context.newPromise()
      ask(context.getNumber(arg)).then((value) => {
        const result = context.newNumber(value)
        deferred.resolve(result)
        result.dispose()
        runtime.executePendingJobs()
      })
      return deferred.handle
    })
    const promise = context.unwrapResult(context.evalCode(`(async () => { ${GUEST_SOURCES.echoLoop((arg) => `echo(${arg})`)} })()`))
    runtime.executePendingJobs()
    const settled = await context.resolvePromise(promise)
    promise.dispose()
    return readNumber(context, context.unwrapResult(settled))
  },
  W3: ({ context }) => evalWith(context, `${GUEST_SOURCES.fib} fib(${FIB_N})`, (h) => context.getNumber(h)),
  // W4: JSON text is the fastest way across QuickJS's boundary (a handle per property is far slower).
  W4: ({ context }, json) => {
    const text = context.newString(json)
    context.setProp(context.global, 'dataJson', text)
    text.dispose()
    return evalWith(context, 'JSON.stringify(JSON.parse(dataJson))', (h) => context.getString(h))
  },
  /** W5's best method: the guest buffers its lines and one string comes out. */
  W5: ({ context }) => {
    return evalWith(context, GUEST_SOURCES.bufferedLogs(), (h) => context.getString(h))
  },
}

function readNumber(context, handle) {
  try {
    return context.getNumber(handle)
  } finally {
    handle.dispose()
  }
}

function rawWorkloads(module) {
  const once = (body) => async () => {
    const engine = fresh(module)
    try {
      return await body(engine)
    } finally {
      engine.close()
    }
  }
  return {
    W1: once((engine) => expectEqual('W1', IN_ENGINE.W1(engine), 3)),
    W2: once(async (engine) => expectEqual('W2', await IN_ENGINE.W2(engine, (i) => Promise.resolve(i)), ECHO_SUM)),
    W3: once((engine) => expectEqual('W3', IN_ENGINE.W3(engine), FIB_RESULT)),
    W4: { 'JSON text': once((engine) => checkBigData(JSON.parse(IN_ENGINE.W4(engine, bigDataJson())))) },
    W5: {
      'host function per line': once(({ context }) => {
        const lines = []
        defineFunction(context, 'hostLog', (line) => void lines.push(context.getString(line)))
        evalWith(context, `const log = (...a) => hostLog(a.join(' ')); ${GUEST_SOURCES.logLoop('log')}`, () => undefined)
        checkLogLines(lines)
      }),
      'buffered, one string out': once((engine) => checkLogLines(IN_ENGINE.W5(engine).split('\n'))),
    },
    W6: true,
  }
}

const ONLY_W1 = 'W1 only: shows what a WASM instance per run (as cordon QuickJS makes) costs; other work as raw quickjs-emscripten'

export const rawQuickJSContenders = [
  {
    id: 'raw-quickjs',
    load: async () => {
      const module = await newQuickJSWASMModuleFromVariant(await loadVariant())
      return {
        id: 'raw-quickjs',
        name: 'raw quickjs-emscripten (new runtime per run)',
        engine: 'quickjs',
        note: 'one WASM module for all runs; a new runtime + context per run',
        ...rawWorkloads(module),
        dispose: async () => {},
      }
    },
  },
  {
    id: 'raw-quickjs-instance',
    load: async () => {
      const perRun = newVariant(await loadVariant(), { wasmModule: await compileWasm() })
      return {
        id: 'raw-quickjs-instance',
        name: 'raw quickjs-emscripten (new WASM instance per run)',
        engine: 'quickjs',
        W1: async () => {
          const module = await newQuickJSWASMModuleFromVariant(perRun)
          const engine = fresh(module)
          try {
            expectEqual('W1', IN_ENGINE.W1(engine), 3)
          } finally {
            engine.close()
          }
        },
        W2: ONLY_W1,
        W3: ONLY_W1,
        W4: ONLY_W1,
        W5: ONLY_W1,
        W6: true,
        dispose: async () => {},
      }
    },
  },
]
