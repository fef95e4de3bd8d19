// What a durable run's resume costs as its ledger grows: a program makes N tool calls, then one
// that pauses; we time `resume` (N calls answered from the ledger, the answer, the end) against a
// fresh `run` of the same program whose N + 1 calls all reach an instant host tool. Prints Markdown.
//   node --no-node-snapshot src/resume-cost.mjs [--quick] [--out file.json]
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createIvmBackend } from '@cordon/backend-ivm'
import { createQuickJSBackend } from '@cordon/backend-quickjs'
import { createSubprocessBackend } from '@cordon/backend-subprocess'
import { createSandbox } from '@cordon/core'
import { formatMs, summarize } from './stats.mjs'

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const out = args.includes('--out') ? args[args.indexOf('--out') + 1] : undefined
const SAMPLES = quick ? 3 : 20
const CALLS = [10, 100, 1_000]
const BACKENDS = {
  'cordon-quickjs': () => createQuickJSBackend(),
  'cordon-quickjs-inline': () => createQuickJSBackend({ thread: 'inline' }),
  'cordon-ivm': () => createIvmBackend(),
  'cordon-subprocess': () => createSubprocessBackend(),
}

const program = (n) => `for (let i = 0; i < ${n}; i++) await t.echo({ i, tag: 'record' }); return await ask.human('ok?')`
const limits = { maxToolCalls: 2_000, timeoutMs: 60_000 }

/** The paused run's tools; `live` answers ask.human itself, so the same program runs to its end. */
function tools(live) {
  return {
    't.echo': { execute: (args) => args },
    'ask.human': { execute: (question, ctx) => (live ? 'yes' : ctx.interrupt(question)) },
  }
}

async function time(action) {
  const started = performance.now()
  const result = await action()
  const ms = performance.now() - started
  if (!result.ok || result.value !== 'yes') throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 300)}`)
  return ms
}

const rows = []
for (const [id, makeBackend] of Object.entries(BACKENDS)) {
  const sandbox = createSandbox(makeBackend(), { durable: { keys: [randomBytes(32)] } })
  const paused = tools(false)
  const live = tools(true)
  try {
    for (const n of CALLS) {
      const first = await sandbox.run(program(n), { tools: paused, ...limits })
      if (!first.interrupted) throw new Error(`${id}: the run did not pause: ${JSON.stringify(first).slice(0, 300)}`)
      const resumeMs = []
      const runMs = []
      // Warm up both paths once, then alternate so that noise hits both alike.
      await time(() => sandbox.resume(first.continuation, { answer: 'yes', tools: paused }))
      await time(() => sandbox.run(program(n), { tools: live, ...limits }))
      for (let i = 0; i < SAMPLES; i++) {
        resumeMs.push(await time(() => sandbox.resume(first.continuation, { answer: 'yes', tools: paused })))
        runMs.push(await time(() => sandbox.run(program(n), { tools: live, ...limits })))
      }
      const resume = summarize(resumeMs).median
      const run = summarize(runMs).median
      rows.push({
        contender: id,
        calls: n,
        continuationBytes: first.continuation.length,
        resumeMs: resume,
        liveRunMs: run,
        samples: SAMPLES,
      })
      console.error(`[resume-cost] ${id} N=${n}: resume ${formatMs(resume)} ms, live run ${formatMs(run)} ms`)
    }
  } finally {
    await sandbox.dispose()
  }
}

const lines = [
  '| contender | recorded calls | continuation | resume (median) | per recorded call | live run of the same program (median) | resume / live |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.contender} | ${r.calls} | ${(r.continuationBytes / 1024).toFixed(1)} KiB | ${formatMs(r.resumeMs)} ms | ${formatMs(r.resumeMs / r.calls)} ms | ${formatMs(r.liveRunMs)} ms | ${(r.resumeMs / r.liveRunMs).toFixed(2)} |`,
  ),
]
console.log(lines.join('\n'))
if (out !== undefined) {
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, JSON.stringify({ samples: SAMPLES, rows }, null, 2))
}
