// Runs inside one runtime (Node, Bun or Deno) and prints one JSON object on stdout:
// what diagnose() found, and what createSandbox() did with a program that calls a tool.
// runtime-matrix.mjs starts it under each runtime and checks the answers.
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

const started = performance.now()
const diagnosis = await diagnose()
const diagnoseMs = Math.round(performance.now() - started)
const chosen = await runOn({})
const forced = {}
for (const c of diagnosis.candidates) if (c.available) forced[c.name] = await runOn({ backend: c.name })
// Keep stdout to the one JSON line: backends may log nothing, but be safe.
process.stdout.write(`\n@@SMOKE@@${JSON.stringify({ diagnosis, diagnoseMs, chosen, forced })}\n`)
// Warm pools and timers must not keep a finished smoke alive.
process.exit(0)
