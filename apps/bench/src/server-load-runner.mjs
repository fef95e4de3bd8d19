// How a backend serves a steady stream of requests, as an MCP server or agent platform does:
//   W7: 8 runs in flight, each making 5 sequential tool calls (runs/s, median batch);
//   W1 after an idle pause: one run after 500 ms of nothing (median latency);
//   W1 at 15 ms spacing: a run started every 15 ms whether or not the last one ended (median latency).
import { formatMs, formatRate, median } from './stats.mjs'
import { IN_FLIGHT } from './workloads.mjs'

const TOOL_PROGRAM = 'let s = 0\nfor (let i = 0; i < 5; i++) s += await host.echo(i)\nreturn s'
const echoTools = { 'host.echo': { execute: (i) => i } }
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function ok(promise, expected) {
  const r = await promise
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`)
  if (r.value !== expected) throw new Error(`expected ${expected}, got ${JSON.stringify(r.value)}`)
}

async function toolBatch(sandbox, count) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      next++
      await ok(sandbox.run(TOOL_PROGRAM, { tools: echoTools, timeoutMs: 60_000 }), 10)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return performance.now() - start
}

async function afterIdle(sandbox, samples) {
  const times = []
  for (let i = 0; i < samples; i++) {
    await sleep(500)
    const start = performance.now()
    await ok(sandbox.run('return 1 + 2'), 3)
    times.push(performance.now() - start)
  }
  return median(times)
}

async function paced(sandbox, runs) {
  const times = []
  const all = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    all.push(ok(sandbox.run('return 1 + 2'), 3).then(() => times.push(performance.now() - start)))
    await sleep(15)
  }
  await Promise.all(all)
  return median(times)
}

async function measureOne(c, plan) {
  const { rounds, batch, idleSamples, pacedRuns } = plan.serverLoad
  const rates = []
  await toolBatch(c.sandbox, IN_FLIGHT)
  for (let round = 0; round < rounds; round++) rates.push((batch * 1000) / (await toolBatch(c.sandbox, batch)))
  return {
    toolRunsPerSecond: median(rates),
    idleW1Ms: await afterIdle(c.sandbox, idleSamples),
    pacedW1Ms: await paced(c.sandbox, pacedRuns),
  }
}

export async function measureServerLoad(contenders, plan) {
  const rows = []
  for (const c of contenders.filter((c) => c.sandbox !== undefined && !c.unavailable)) {
    const base = { contenderId: c.id, contender: c.name, engine: c.engine }
    if (plan.serverLoad.skip?.includes(c.id)) {
      rows.push({ ...base, status: 'skipped', reason: 'left out: the same work as its pooled mode' })
      continue
    }
    try {
      rows.push({ ...base, status: 'ok', ...(await measureOne(c, plan)) })
    } catch (error) {
      rows.push({ ...base, status: 'failed', reason: String(error?.message ?? error) })
    }
  }
  return rows
}

export function serverLoadTable(rows) {
  const head = [
    'contender',
    `W7 runs/s (${IN_FLIGHT} in flight, 5 tool calls each)`,
    'W1 after 500 ms idle (median ms)',
    'W1 at 15 ms spacing (median ms)',
  ]
  const body = rows.map((r) =>
    r.status === 'ok'
      ? [r.contender, formatRate(r.toolRunsPerSecond), formatMs(r.idleW1Ms), formatMs(r.pacedW1Ms)]
      : [r.contender, `${r.status}: ${r.reason}`, '', ''],
  )
  return [
    '### Server load: tool-calling runs in flight, and W1 after idle and under a steady stream',
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}
