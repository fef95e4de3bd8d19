/**
 * A worker thread for parsing (src/parse-worker.ts does the jobs): guest programs
 * (normalize/index.ts) and modules (modules/module-graph.ts) go there when they are large or need
 * sucrase, whose first load alone is ~120 ms of synchronous work, and tools' input schemas
 * (tool-schema/schema-validator.ts), as loading Ajv is ~70 ms more. One worker, started on first
 * need and ended after a minute without work; idle, it never keeps the process alive. Where no
 * worker can run (no worker file beside this module, as in a single-file bundle of the host), the
 * answer is undefined and the caller parses on its own thread.
 */
import type { Worker } from 'node:worker_threads'

/** A job for the parse thread: its `kind` names what parse-worker.ts does with it. */
export interface ParseJob {
  kind: string
  [field: string]: unknown
}

/** The worker's answer; `outOfMemory` when the job ran it out of its heap. */
export type ParseAnswer = { answer: unknown } | { outOfMemory: true }

/**
 * Code up to this size is parsed on the calling thread when it needs nothing loaded there:
 * parsing 32 KB takes a few milliseconds on a slow VM, less than a round trip to the parse thread.
 */
export const PARSE_HERE_MAX_CHARS = 32 * 1024

const IDLE_MS = 60_000
/** Bounds the parser's heap: a pathological program costs the worker, never the host. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 32 }

type Answer = (answer: ParseAnswer | undefined) => void

interface Thread {
  worker: Worker
  pending: Map<number, Answer>
  idle?: ReturnType<typeof setTimeout>
}

let current: Promise<Thread | undefined> | undefined
/** Set when the worker file is missing, or a worker died before answering anything. */
let unavailable = false
let nextId = 0

/** Does `job` on the parse thread; undefined when there is none: the caller does it itself. */
export async function askParseThread(job: ParseJob): Promise<ParseAnswer | undefined> {
  if (unavailable) return undefined
  current ??= start()
  const thread = await current
  if (thread === undefined) return undefined
  clearTimeout(thread.idle)
  const id = nextId++
  // Held while it has work, as any pending I/O: the process waits for the answer.
  thread.worker.ref()
  return new Promise((resolve) => {
    thread.pending.set(id, resolve)
    thread.worker.postMessage({ id, job })
  })
}

/** Node's modules are loaded here, on first need: importing core costs nothing for them. */
async function start(): Promise<Thread | undefined> {
  let worker: Worker
  try {
    const [{ existsSync }, { fileURLToPath }, { Worker }] = await Promise.all([
      import('node:fs'),
      import('node:url'),
      import('node:worker_threads'),
    ])
    // Beside this module in dist; from the sources (the package's own tests), the built one.
    const file = [new URL('./parse-worker.js', import.meta.url), new URL('../../dist/parse-worker.js', import.meta.url)].find(
      (url) => url.protocol === 'file:' && existsSync(fileURLToPath(url)),
    )
    if (file === undefined) throw new Error('no parse-worker.js')
    worker = new Worker(file, { name: 'cordon-parse', resourceLimits: RESOURCE_LIMITS })
  } catch {
    unavailable = true
    current = undefined
    return undefined
  }
  const thread: Thread = { worker, pending: new Map() }
  const self = current
  const retire = () => {
    if (current === self) current = undefined
  }
  let answered = false
  let outOfMemory = false
  worker.on('message', ({ id, answer }: { id: number; answer?: unknown }) => {
    answered = true
    // No answer: the job threw there (a bug); the caller does it itself.
    thread.pending.get(id)?.(answer === undefined ? undefined : { answer })
    thread.pending.delete(id)
    if (thread.pending.size > 0) return
    worker.unref()
    thread.idle = setTimeout(() => {
      retire()
      void worker.terminate()
    }, IDLE_MS).unref()
  })
  // An error ends the worker. Out of memory, the jobs it had not answered fail (on this thread
  // they would fill the host's heap); else their callers do them themselves.
  worker.on('error', (error: Error & { code?: string }) => {
    outOfMemory = error.code === 'ERR_WORKER_OUT_OF_MEMORY'
  })
  worker.on('exit', () => {
    retire()
    if (!answered && !outOfMemory) unavailable = true
    for (const answer of thread.pending.values()) answer(outOfMemory ? { outOfMemory: true } : undefined)
    thread.pending.clear()
  })
  // Idle, it never keeps the process alive (unref after the listeners: adding one refs it again).
  worker.unref()
  return thread
}
