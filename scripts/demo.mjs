// The README's "main job": run a program (examples/hello.ts by default) in the QuickJS
// sandbox with a small fake GitHub tool, and print its value and logs.
import { readFileSync } from 'node:fs'
import { createSandbox } from '@cordon/core'
import { createQuickJSBackend } from '@cordon/backend-quickjs'

const file = process.argv[2] ?? new URL('../examples/hello.ts', import.meta.url)
const code = readFileSync(file, 'utf8')

const sandbox = createSandbox(createQuickJSBackend())
const result = await sandbox.run(code, {
  globals: { repo: 'acme/app' },
  timeoutMs: 5_000,
  memoryMb: 64,
  tools: {
    'github.listIssues': {
      description: 'List the open issues of a repository',
      inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
      execute: async ({ repo }) => [
        { id: 1, title: `${repo}: crash on start`, labels: ['bug'] },
        { id: 2, title: 'docs: typo', labels: ['docs'] },
        { id: 3, title: 'leak in pool', labels: ['bug', 'perf'] },
      ],
    },
  },
})
await sandbox.dispose()

for (const entry of result.logs) console.log(`[${entry.level}] ${entry.message}`)
if (result.ok) console.log('value:', result.value)
else console.log(`error ${result.error.code}: ${result.error.message}${result.error.line ? ` (line ${result.error.line})` : ''}`)
console.log(`stats: ${JSON.stringify(result.stats)}`)
process.exitCode = result.ok ? 0 : 1
