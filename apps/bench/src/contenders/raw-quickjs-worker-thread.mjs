// The worker thread of the raw-quickjs-worker contender: raw quickjs-emscripten exactly as
// raw-quickjs drives it (IN_ENGINE: a new runtime + context per order, the same limits), serving
// the main thread's orders over postMessage with the raw contenders' far-side link. Orders are
// `{ id, work, dataJson? }`; each ends with `{ id, ok, value?, logs?, error? }`, and `{ ready }`
// goes out once first.
import { parentPort, workerData } from 'node:worker_threads'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { IN_ENGINE, fresh, loadVariant } from './raw-quickjs.mjs'
import links from './stdio-child-link.cjs'

// The main thread compiled the WASM once; this thread only instantiates it.
const module = await newQuickJSWASMModuleFromVariant(newVariant(await loadVariant(), { wasmModule: workerData.wasmModule }))

const WORK = {
  W1: (engine) => ({ value: IN_ENGINE.W1(engine) }),
  W2: async (engine, echo) => ({ value: await IN_ENGINE.W2(engine, echo) }),
  W3: (engine) => ({ value: IN_ENGINE.W3(engine) }),
  // The result stays JSON text: the main thread parses it, as raw-quickjs's host does.
  W4: (engine, echo, order) => ({ value: IN_ENGINE.W4(engine, order.dataJson) }),
  // All lines in one string, sent with the end of the run.
  W5: (engine) => ({ logs: IN_ENGINE.W5(engine) }),
}

// As raw-quickjs's runs do, an order ends after its engine is disposed: the reply comes after.
async function serve(order, echo, send) {
  let reply
  try {
    const engine = fresh(module)
    try {
      reply = { id: order.id, ok: true, ...(await WORK[order.work](engine, echo, order)) }
    } finally {
      engine.close()
    }
  } catch (error) {
    reply = { id: order.id, ok: false, error: String(error?.message ?? error) }
  }
  send(reply)
}

parentPort.on(
  'message',
  links.serveLink(serve, (message) => parentPort.postMessage(message)),
)
parentPort.postMessage({ ready: true })
