// The QuickJS engines cordon could run on, raw (no cordon, no guards), behind one small interface
// so the comparisons in engines.mjs and test262.mjs ask every engine the same thing:
//   const engine = await open(name, { stackBytes, memoryBytes, interrupt })
//   engine.evaluate(code, { filename, module })  -> { value } | { error: { name, message, stack } } | { crash }
//   engine.drain()                               -> runs pending jobs; { crash } if the engine failed
//   engine.define(name, fn)                      -> a global function calling fn(...strings) on the host
//   engine.memoryBytes(), engine.dispose()
// `crash` is an exception from the engine itself (a WASM trap, a host stack overflow): the guest
// could not catch it and the instance is not to be trusted afterwards.
import { readFile } from 'node:fs/promises'
import { QuickJS } from 'quickjs-wasi'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'

export const ENGINES = {
  'quickjs 2025-09-13': { family: 'emscripten', variant: '@jitl/quickjs-wasmfile-release-sync' },
  'quickjs-ng 0.12.1': { family: 'emscripten', variant: '@jitl/quickjs-ng-wasmfile-release-sync' },
  'quickjs-ng 0.18.0 (quickjs-wasi 3.7.0)': { family: 'wasi' },
}

/** The `.wasm` file each engine runs, for its size. */
export function wasmPath(name) {
  const spec = ENGINES[name]
  return new URL(import.meta.resolve(spec.family === 'wasi' ? 'quickjs-wasi/quickjs.wasm' : `${spec.variant}/wasm`))
}

const compiled = new Map()
async function compile(name) {
  if (!compiled.has(name)) compiled.set(name, new WebAssembly.Module(await readFile(wasmPath(name))))
  return compiled.get(name)
}

const variants = new Map()
async function variantOf(name) {
  if (!variants.has(name)) variants.set(name, (await import(ENGINES[name].variant)).default)
  return variants.get(name)
}

export async function open(name, { stackBytes = 256 * 1024, memoryBytes, interrupt } = {}) {
  return ENGINES[name].family === 'wasi'
    ? openWasi(name, stackBytes, memoryBytes, interrupt)
    : openEmscripten(name, stackBytes, memoryBytes, interrupt)
}

// quickjs-emscripten's dump fails on some objects (a promise); the comparisons need only plain values.
const dumpable = (type) => type !== 'object' && type !== 'function'

function crashOf(error) {
  return { crash: `${error?.constructor?.name ?? 'Error'}: ${error?.message ?? String(error)}` }
}

async function openEmscripten(name, stackBytes, memoryBytes, interrupt) {
  const wasm = await compile(name)
  const quiet = () => {}
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(await variantOf(name), {
      emscriptenModule: {
        print: quiet,
        printErr: quiet,
        instantiateWasm(imports, done) {
          WebAssembly.instantiate(wasm, imports).then(done)
          return {}
        },
      },
    }),
  )
  const runtime = module.newRuntime()
  runtime.setMaxStackSize(stackBytes)
  if (memoryBytes !== undefined) runtime.setMemoryLimit(memoryBytes)
  if (interrupt !== undefined) runtime.setInterruptHandler(interrupt)
  const context = runtime.newContext()
  const read = (result) => {
    if (!result.error)
      return {
        value: result.value.consume((handle) => (dumpable(context.typeof(handle)) ? context.dump(handle) : `[${context.typeof(handle)}]`)),
      }
    const thrown = result.error.consume((handle) => context.dump(handle))
    return { error: typeof thrown === 'object' && thrown !== null ? thrown : { name: typeof thrown, message: String(thrown) } }
  }
  return {
    evaluate(code, { filename = 'program.js', module: isModule = false } = {}) {
      try {
        return read(context.evalCode(code, filename, { type: isModule ? 'module' : 'global' }))
      } catch (error) {
        return crashOf(error)
      }
    },
    drain() {
      try {
        // Success carries the number of jobs run, not a handle.
        const result = runtime.executePendingJobs()
        return result.error ? read(result) : {}
      } catch (error) {
        return crashOf(error)
      }
    },
    define(fnName, fn) {
      const handle = context.newFunction(fnName, (...args) => {
        fn(...args.map((arg) => context.dump(arg)))
      })
      context.setProp(context.global, fnName, handle)
      handle.dispose()
    },
    memoryBytes: () => module.getWasmMemory().buffer.byteLength,
    dispose() {
      try {
        context.dispose()
        runtime.dispose()
      } catch {
        // An engine that crashed cannot always free itself; its instance is dropped whole.
      }
    },
  }
}

async function openWasi(name, stackBytes, memoryBytes, interrupt) {
  const vm = await QuickJS.create({
    wasm: await compile(name),
    maxStackSize: stackBytes,
    memoryLimit: memoryBytes,
    interruptHandler: interrupt,
  })
  const fromException = (error) => ({ error: { name: error.name, message: error.message, stack: error.stack } })
  const guarded = (action) => {
    try {
      return action()
    } catch (error) {
      return error?.constructor?.name === 'JSException' ? fromException(error) : crashOf(error)
    }
  }
  return {
    evaluate(code, { filename = 'program.js', module: isModule = false } = {}) {
      return guarded(() => ({
        value: vm
          .evalCode(code, filename, isModule ? 1 : 0)
          .consume((handle) => (dumpable(vm.typeof(handle)) ? vm.dump(handle) : `[${vm.typeof(handle)}]`)),
      }))
    },
    drain() {
      return guarded(() => {
        vm.executePendingJobs()
        return {}
      })
    },
    define(fnName, fn) {
      const handle = vm.newFunction(fnName, (...args) => {
        fn(...args.map((arg) => vm.dump(arg)))
        return vm.undefined
      })
      vm.setProp(vm.global, fnName, handle)
      handle.dispose()
    },
    memoryBytes: () => vm.exports.memory.buffer.byteLength,
    dispose() {
      try {
        vm.dispose()
      } catch {
        // As above.
      }
    },
    vm,
  }
}
