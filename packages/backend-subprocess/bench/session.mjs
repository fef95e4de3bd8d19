// What a session costs on this backend. Run after `pnpm build`: node bench/session.mjs [runs] [sessions]
//   (a) memory per idle session: open N sessions (default 20), one small run each, then read
//       each child's resident memory from /proc (Linux) and the heap the session reports;
//   (b) latency of `x + 1` inside a warm session (after `const x = 1`), against one-off
//       `sandbox.run` on a warm pool (spares ready before each run) and back to back.
import fs from 'node:fs'
import { createSandbox } from '@cordon/core'
import { createSubprocessBackend } from '../dist/index.js'

const runs = Number(process.argv[2] ?? 200)
const sessionCount = Number(process.argv[3] ?? 20)
const MB = 1024 * 1024
const sorted = (values) => [...values].sort((a, b) => a - b)
const pick = (values, q) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * q))]
const ms = (value) => `${value.toFixed(2)} ms`
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`
const stats = (values) => `median ${ms(pick(values, 0.5))}, p95 ${ms(pick(values, 0.95))}, best ${ms(sorted(values)[0])}`

async function time(fn) {
  const start = performance.now()
  await fn()
  return performance.now() - start
}

function expectValue(result, value) {
  if (!result.ok || result.value !== value) throw new Error(`unexpected result ${JSON.stringify(result)}`)
}

/** Every process below `root`, with its command line and resident memory (Linux /proc). */
function processesBelow(root) {
  const parentOf = new Map()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1')
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const below = []
  const walk = (pid) => {
    for (const [child, parent] of parentOf) {
      if (parent !== pid) continue
      below.push(child)
      walk(child)
    }
  }
  walk(root)
  return below.flatMap((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ')
      const rssKb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0)
      return [{ pid, cmdline, rss: rssKb * 1024 }]
    } catch {
      return []
    }
  })
}

const hostRss = () => process.memoryUsage().rss

// ---- (a) memory per idle session ------------------------------------------------------
// poolSize 0: no spare children, so every process below the host belongs to a session.
{
  const backend = createSubprocessBackend({ poolSize: 0 })
  const sandbox = createSandbox(backend)
  console.log('launch:', (await backend.diagnose()).layers.join(', ') || 'no wrappers')
  const hostBefore = hostRss()
  const sessions = []
  for (let i = 0; i < sessionCount; i++) {
    const session = await sandbox.createSession({ memoryMb: 128 })
    expectValue(await session.run(`const x = ${i}\nx`), i)
    sessions.push(session)
  }
  await new Promise((resolve) => setTimeout(resolve, 500))
  const below = process.platform === 'linux' ? processesBelow(process.pid) : []
  // Wrappers exec the next one in place, except `unshare --fork`, which stays as Node's parent.
  const nodes = below.filter((entry) => entry.cmdline.split(' ')[0] === process.execPath)
  const wrappers = below.filter((entry) => !nodes.includes(entry))
  const heaps = await Promise.all(sessions.map(async (session) => (await session.memoryUsage()).heapBytes))
  console.log(`\n(a) ${sessionCount} idle sessions, one small run each (memoryMb 128), node ${process.version}`)
  if (nodes.length > 0) {
    const rss = nodes.map((entry) => entry.rss)
    console.log(
      `  child Node process RSS per session: median ${mb(pick(rss, 0.5))}, max ${mb(Math.max(...rss))} (${nodes.length} processes)`,
    )
    const wrapperRss = wrappers.reduce((sum, entry) => sum + entry.rss, 0)
    console.log(`  launch wrappers left running: ${wrappers.length} processes, ${mb(wrapperRss / sessionCount)} per session`)
    console.log(`  all processes below the host: ${mb(below.reduce((sum, entry) => sum + entry.rss, 0) / sessionCount)} per session`)
  } else {
    console.log('  (child RSS needs Linux /proc)')
  }
  console.log(`  heap reported by session.memoryUsage(): median ${mb(pick(heaps, 0.5))}, max ${mb(Math.max(...heaps))}`)
  console.log(`  host RSS growth: ${mb((hostRss() - hostBefore) / sessionCount)} per session`)
  await sandbox.dispose()
}

// ---- (b) run latency -------------------------------------------------------------------
{
  const backend = createSubprocessBackend()
  const sandbox = createSandbox(backend)
  await backend.warm()
  const session = await sandbox.createSession()
  await session.run('const x = 1')
  for (let i = 0; i < 20; i++) await session.run('x + 1') // JIT the host side
  const inSession = []
  for (let i = 0; i < runs; i++) inSession.push(await time(async () => expectValue(await session.run('x + 1'), 2)))
  await session.dispose()

  const program = 'const x = 1\nx + 1'
  for (let i = 0; i < 5; i++) await sandbox.run(program)
  const warm = []
  for (let i = 0; i < runs; i++) {
    await backend.warm()
    warm.push(await time(async () => expectValue(await sandbox.run(program), 2)))
  }
  const backToBack = []
  for (let i = 0; i < runs; i++) backToBack.push(await time(async () => expectValue(await sandbox.run(program), 2)))
  await sandbox.dispose()

  console.log(`\n(b) ${runs} runs each, node ${process.version}`)
  console.log(`  session.run('x + 1') in a warm session:        ${stats(inSession)}`)
  console.log(`  sandbox.run(...) one-off, spares ready first:  ${stats(warm)}`)
  console.log(`  sandbox.run(...) one-off, back to back:        ${stats(backToBack)}`)
}
