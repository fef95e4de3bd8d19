// quickjs-emscripten by hand in one warm worker thread (raw-quickjs-worker-thread.mjs): the raw
// floor for cordon QuickJS's default worker mode over the same kind of channel. One postMessage
// each way per run and per tool call, the tool answered on the main thread; W4's JSON and W5's
// lines travel inside those messages. Nothing else: no pool, no limits beyond raw-quickjs's.
import { Worker } from 'node:worker_threads'
import { ECHO_SUM, FIB_RESULT, bigDataJson, checkBigData, checkLogLines, expectEqual } from '../workloads.mjs'
import { RawLink } from './raw-link.mjs'
import { compileWasm } from './raw-quickjs.mjs'

const ENTRY = new URL('./raw-quickjs-worker-thread.mjs', import.meta.url)

class QuickJSWorker {
  #worker
  #link
  /** Resolves once the worker has its QuickJS module. */
  ready

  constructor(wasmModule, echo = (value) => value) {
    // No flags of the host's (as cordon's workers): the bench's own are per-process ones.
    this.#worker = new Worker(ENTRY, { workerData: { wasmModule }, execArgv: [] })
    this.#link = new RawLink((message) => this.#worker.postMessage(message), echo)
    this.ready = new Promise((resolve, reject) => {
      this.#worker.once('error', reject)
      this.#worker.once('exit', (code) => reject(new Error(`the worker exited (code ${code}) before it was ready`)))
      this.#worker.on('message', (message) => (message.ready ? resolve() : this.#link.receive(message)))
    })
    this.#worker.on('error', (error) => this.#link.failAll(error))
    this.#worker.on('exit', (code) => this.#link.failAll(new Error(`the worker exited (code ${code})`)))
  }

  /** Runs workload `work` in a fresh runtime + context; resolves `{ value, logs }`. */
  run(work, dataJson) {
    return this.#link.request({ work, dataJson })
  }

  /** Ends the thread, so that it keeps neither the process nor its memory. */
  async close() {
    await this.#worker.terminate()
  }
}

export const rawQuickJSWorkerContenders = [
  {
    id: 'raw-quickjs-worker',
    load: async () => {
      const worker = new QuickJSWorker(await compileWasm())
      try {
        await worker.ready
      } catch (error) {
        await worker.close()
        throw error
      }
      return {
        id: 'raw-quickjs-worker',
        name: 'raw quickjs-emscripten in a warm worker thread (new runtime per run, postMessage)',
        engine: 'quickjs',
        note: 'one WASM module in one worker thread for all runs; a new runtime + context per run',
        W1: async () => expectEqual('W1', (await worker.run('W1')).value, 3),
        W2: async () => expectEqual('W2', (await worker.run('W2')).value, ECHO_SUM),
        W3: async () => expectEqual('W3', (await worker.run('W3')).value, FIB_RESULT),
        W4: { 'JSON text': async () => checkBigData(JSON.parse((await worker.run('W4', bigDataJson())).value)) },
        W5: { 'buffered, one string out': async () => checkLogLines((await worker.run('W5')).logs.split('\n')) },
        // One thread: 8 runs in flight queue up in its inbox, as they would in a pool of one.
        W6: true,
        dispose: () => worker.close(),
      }
    },
  },
]
