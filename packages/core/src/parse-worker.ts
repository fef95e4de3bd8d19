/**
 * The worker of parse-thread/parse-thread.ts: normalizes guest programs, compiles modules (sucrase
 * included) and tools' input schemas. An entry of its own, beside the package's chunks.
 */
import { parentPort } from 'node:worker_threads'
import { compileModule } from './modules/compile-module.js'
import { normalizeProgram, type ProgramRequest } from './normalize/normalize-program.js'
import { compileSchemaSource } from './tool-schema/compile-schema.js'

interface Job {
  kind: string
  request?: ProgramRequest
  name?: string
  source?: string
  text?: string
}

const jobs: Record<string, (job: Job) => Promise<unknown>> = {
  program: (job) => normalizeProgram(job.request!, true),
  module: (job) => compileModule(job.name!, job.source!),
  schema: (job) => compileSchemaSource(JSON.parse(job.text!) as Record<string, unknown>),
}

const port = parentPort
if (port === null) throw new Error('parse-worker.js runs as a worker thread')
port.on('message', ({ id, job }: { id: number; job: Job }) => {
  // A throw (a bug, or a kind this worker does not know) answers nothing: the host does that job itself.
  new Promise((resolve) => resolve(jobs[job.kind]!(job))).then(
    (answer) => port.postMessage({ id, answer }),
    () => port.postMessage({ id }),
  )
})
