/**
 * The worker of parse-thread/parse-thread.ts: normalizes guest programs and compiles modules,
 * sucrase included. An entry of its own, beside the package's chunks.
 */
import { parentPort } from 'node:worker_threads'
import { compileModule } from './modules/compile-module.js'
import { normalizeProgram, type ProgramRequest } from './normalize/normalize-program.js'

const port = parentPort
if (port === null) throw new Error('parse-worker.js runs as a worker thread')
port.on('message', ({ id, job }: { id: number; job: { kind: string; request?: ProgramRequest; name?: string; source?: string } }) => {
  const work = job.kind === 'program' ? normalizeProgram(job.request!, true) : compileModule(job.name!, job.source!)
  // A throw (a bug) answers nothing: the host does that job itself.
  work.then(
    (answer) => port.postMessage({ id, answer }),
    () => port.postMessage({ id }),
  )
})
