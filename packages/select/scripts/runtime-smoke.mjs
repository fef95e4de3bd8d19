// Runs inside one runtime (Node, Bun or Deno) and prints one JSON object on stdout:
// what diagnose() found, and what createSandbox() did with a program that calls a tool.
// runtime-matrix.mjs starts it under each runtime and checks the answers.
import { createServer } from 'node:http'
import { createSandbox, diagnose } from '../dist/index.js'

const PROGRAM = 'const issues = await github.listIssues({ repo })\nissues.map((i) => i.id).join(",")'
const TOOLS = {
  'github.listIssues': {
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    execute: async ({ repo }) => (repo === 'acme/app' ? [{ id: 1 }, { id: 2 }] : []),
  },
}

async function runOn(options) {
  const started = performance.now()
  try {
    const sandbox = await createSandbox(options)
    try {
      const r = await sandbox.run(PROGRAM, { tools: TOOLS, globals: { repo: 'acme/app' }, timeoutMs: 10_000 })
      return {
        ok: r.ok,
        value: r.ok ? r.value : undefined,
        error: r.ok ? undefined : r.error,
        backend: r.stats.backend,
        ms: Math.round(performance.now() - started),
      }
    } finally {
      await sandbox.dispose()
    }
  } catch (error) {
    return { threw: { code: error?.code, message: String(error?.message ?? error) }, ms: Math.round(performance.now() - started) }
  }
}

/**
 * Preemption on this runtime: a 5 ms interval's ticks while a guest spins for 1 s, and how long an
 * abort 100 ms into a spin takes to end it (a worker-mode QuickJS must do both; inline could not).
 */
async function preemptionOn(backend) {
  const sandbox = await createSandbox({ backend })
  try {
    let ticks = 0
    let maxGapMs = 0
    let last = performance.now()
    const interval = setInterval(() => {
      const now = performance.now()
      maxGapMs = Math.max(maxGapMs, now - last)
      last = now
      ticks++
    }, 5)
    const spin = await sandbox.run('for (;;) {}', { timeoutMs: 1_000 })
    clearInterval(interval)
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const begun = performance.now()
    const aborted = await sandbox.run('for (;;) {}', { timeoutMs: 10_000, signal: controller.signal })
    const abortMs = Math.round(performance.now() - begun - 100)
    return {
      spinCode: spin.ok ? 'ok' : spin.error.code,
      ticks,
      maxGapMs: Math.round(maxGapMs),
      abortCode: aborted.ok ? 'ok' : aborted.error.code,
      abortMs,
    }
  } finally {
    await sandbox.dispose()
  }
}

/**
 * The guarded fetch on this runtime: a fetch of a loopback server the options name literally, and
 * one of `localhost` (a name that resolves inside, always refused). Each entry: the status, or the
 * TypeError's message.
 */
async function fetchOn(backend) {
  const server = createServer((_request, response) => response.end('ok'))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  const sandbox = await createSandbox({ backend })
  try {
    const urls = [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]
    const r = await sandbox.run(
      `const out = []\nfor (const url of ${JSON.stringify(urls)}) out.push(await fetch(url).then((res) => res.status, (e) => e.message))\nreturn out`,
      { fetch: { allow: urls.map((url) => url.slice(0, -1)), allowPrivateAddresses: true }, timeoutMs: 10_000 },
    )
    return r.ok ? r.value : r.error
  } finally {
    await sandbox.dispose()
    server.close()
  }
}

const started = performance.now()
const diagnosis = await diagnose()
const diagnoseMs = Math.round(performance.now() - started)
const chosen = await runOn({})
const forced = {}
for (const c of diagnosis.candidates) if (c.available) forced[c.name] = await runOn({ backend: c.name })
const quickjs = diagnosis.candidates.find((c) => c.name === 'quickjs')
const preemption = quickjs?.available ? await preemptionOn('quickjs') : undefined
const fetchResult = quickjs?.available ? await fetchOn('quickjs') : undefined
// Keep stdout to the one JSON line: backends may log nothing, but be safe.
process.stdout.write(`\n@@SMOKE@@${JSON.stringify({ diagnosis, diagnoseMs, chosen, forced, preemption, fetch: fetchResult })}\n`)
// Warm pools and timers must not keep a finished smoke alive.
process.exit(0)
