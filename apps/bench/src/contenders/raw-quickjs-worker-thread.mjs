// The worker thread of the raw-quickjs-worker contender: raw quickjs-emscripten exactly as
// raw-quickjs drives it (IN_ENGINE: a new runtime + context per order, the same limits), serving
// the main thread's orders over postMessage. Messages in: `{ id, work, dataJson? }` (an order)
// and `{ reply, value }` (the answer to a tool call); out: `{ ready }` once, `{ call, arg }` for a
// tool call and `{ id, ok, value?, logs?, error? }` for an order's end.
import { parentPort, workerData } from 'node:worker_threads'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { IN_ENGINE, fresh, loadVariant } from './raw-quickjs.mjs'

// The main thread compiled the WASM once; this thread only instantiates it.
const module = await newQuickJSWASMModuleFromVariant(newVariant(await loadVariant(), { wasmModule: workerData.wasmModule }))

/** Tool calls waiting for the main thread's answer: call id → resolve. */
const waiting = new Map()
let nextCall = 0

/** The guest's echo: one postMessage to the main thread, settled by its reply. */
const ask = (arg) =>
  new Promise((resolve) => {
    const call = nextCall++
    waiting.set(call, resolve)
    parentPort.postMessage({ call, arg })
  })

const WORK = {
  W1: (engine) => ({ value: IN_ENGINE.W1(engine) }),
  W2: async (engine) => ({ value: await IN_ENGINE.W2(engine, ask) }),
  W3: (engine) => ({ value: IN_ENGINE.W3(engine) }),
  // The result stays JSON text: the main thread parses it, as raw-quickjs's host does.
  W4: (engine, order) => ({ value: IN_ENGINE.W4(engine, order.dataJson) }),
  // All lines in one string, sent with the end of the run.
  W5: (engine) => ({ logs: IN_ENGINE.W5(engine) }),
}

// As raw-quickjs's runs do, an order ends after its engine is disposed: the reply comes after.
async function serve(order) {
  let reply
  try {
    const engine = fresh(module)
    try {
      reply = { id: order.id, ok: true, ...(await WORK[order.work](engine, order)) }
    } finally {
      engine.close()
    }
  } catch (error) {
    reply = { id: order.id, ok: false, error: String(error?.message ?? error) }
  }
  parentPort.postMessage(reply)
}

parentPort.on('message', (message) => {
  if (message.reply === undefined) return void serve(message)
  const resolve = waiting.get(message.reply)
  waiting.delete(message.reply)
  resolve(message.value)
})
parentPort.postMessage({ ready: true })
