// Soak: thousands of mixed runs, hostile ones included, per backend, on one sandbox each.
// Reports failed runs (a result other than the program's expected one), host RSS growth,
// libuv handles and child processes left behind. Not part of `npm test` (minutes per backend).
//
//   pnpm build && node --no-node-snapshot --expose-gc scripts/soak/soak.mjs [--runs 10000] [--backends quickjs,ivm,subprocess] [--out soak.json]
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createSandbox } from '@cordon/core'
import { activeResources, descendantProcesses, rssMb } from './host-probes.mjs'
import { mismatch, soakSequence } from './mix.mjs'

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    backends: { type: 'string', default: 'quickjs,ivm,subprocess' },
    out: { type: 'string' },
  },
})
const runs = Number(args.runs)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${args.runs}`)

// Backends resolve from their own packages, so the script needs nothing installed at the root.
const FACTORIES = {
  quickjs: async () => (await import('../../packages/backend-quickjs/dist/index.js')).createQuickJSBackend(),
  ivm: async () => (await import('../../packages/backend-ivm/dist/index.js')).createIvmBackend(),
  subprocess: async () => (await import('../../packages/backend-subprocess/dist/index.js')).createSubprocessBackend(),
}

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function soak(name) {
  const factory = FACTORIES[name]
  if (!factory) throw new Error(`unknown backend ${name}; known: ${Object.keys(FACTORIES).join(', ')}`)
  const sandbox = createSandbox(await factory())
  const sequence = soakSequence(runs)
  const failures = []
  const perProgram = {}

  // The first runs warm pools and JIT; growth is measured from after them.
  for (const program of sequence.slice(0, 50)) await sandbox.run(program.code, { tools: program.tools, ...program.options })
  await settle()
  const before = { rss: rssMb(), resources: activeResources(), processes: descendantProcesses() }
  const start = performance.now()
  for (const [index, program] of sequence.entries()) {
    const result = await sandbox.run(program.code, { tools: program.tools, ...program.options })
    const why = mismatch(program, result)
    const tally = (perProgram[program.name] ??= { runs: 0, failed: 0 })
    tally.runs++
    if (why) {
      tally.failed++
      if (failures.length < 20) failures.push({ index, program: program.name, why })
    }
    if ((index + 1) % 1000 === 0) console.error(`  ${name}: ${index + 1}/${runs} runs, rss ${rssMb().toFixed(1)} MB`)
  }
  const seconds = (performance.now() - start) / 1000
  await settle()
  const afterRuns = { rss: rssMb(), processes: descendantProcesses() }
  await sandbox.dispose()
  await settle()
  const afterDispose = { rss: rssMb(), resources: activeResources(), processes: descendantProcesses() }

  return {
    backend: name,
    runs,
    failed: Object.values(perProgram).reduce((sum, t) => sum + t.failed, 0),
    seconds: Number(seconds.toFixed(1)),
    rssBeforeMb: Number(before.rss.toFixed(1)),
    rssGrowthMb: Number((afterRuns.rss - before.rss).toFixed(1)),
    rssGrowthPer1000Mb: Number((((afterRuns.rss - before.rss) * 1000) / runs).toFixed(2)),
    processesBefore: before.processes,
    processesAfterDispose: afterDispose.processes,
    resourcesBefore: before.resources,
    resourcesAfterDispose: afterDispose.resources,
    perProgram,
    failures,
  }
}

const reports = []
for (const name of args.backends
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)) {
  console.error(`soak: ${name}, ${runs} runs`)
  reports.push(await soak(name))
}

console.log('| backend | runs | failed | s | RSS growth MB | per 1,000 runs | child processes after dispose | handles left after dispose |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
for (const r of reports) {
  // Only handle types that grew: the script's own stdio pipes are there before and after.
  const handles =
    Object.entries(r.resourcesAfterDispose)
      .filter(([type, n]) => n > (r.resourcesBefore[type] ?? 0))
      .map(([type, n]) => `${type} +${n - (r.resourcesBefore[type] ?? 0)}`)
      .join(', ') || 'none'
  console.log(
    `| ${r.backend} | ${r.runs} | ${r.failed} | ${r.seconds} | ${r.rssGrowthMb} | ${r.rssGrowthPer1000Mb} | ${r.processesAfterDispose ?? 'unknown'} | ${handles} |`,
  )
  for (const f of r.failures) console.log(`  ${r.backend} run ${f.index} (${f.program}): ${f.why}`)
}
if (args.out) writeFileSync(args.out, `${JSON.stringify({ node: process.version, date: new Date().toISOString(), reports }, null, 2)}\n`)
process.exitCode = reports.some((r) => r.failed > 0 || (r.processesAfterDispose ?? 0) > 0) ? 1 : 0
