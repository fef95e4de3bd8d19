// Resumes a continuation in a process of its own: nothing of the paused run is in its memory.
// Usage: node resume-child.mjs <continuation file>; the key comes from CORDON_TEST_DURABLE_KEY.
// Prints one JSON line: the RunResult and how many times each host tool was called here.
import { readFileSync } from 'node:fs'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const continuation = readFileSync(process.argv[2], 'utf8')
const sandbox = createSandbox(createQuickJSBackend(), { durable: { keys: [process.env.CORDON_TEST_DURABLE_KEY] } })
const calls = {}
const count = (name) => (calls[name] = (calls[name] ?? 0) + 1)
const tools = {
  'inventory.reserve': { execute: (args) => (count('inventory.reserve'), { reserved: args.sku }) },
  'ask.human': { execute: (question, ctx) => (count('ask.human'), ctx.interrupt({ question })) },
}
try {
  const result = await sandbox.resume(continuation, { answer: 'approved in another process', tools })
  process.stdout.write(JSON.stringify({ result, calls }) + '\n')
} finally {
  await sandbox.dispose()
}
