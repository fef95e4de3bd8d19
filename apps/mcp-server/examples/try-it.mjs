// Talks to cordon-mcp the way an MCP client does, without one installed:
//   node apps/mcp-server/examples/try-it.mjs 'const { sum } = await demo.add({ a: 1, b: 2 }); sum * 10'
// It starts dist/server.js with examples/config.json (the demo upstream), runs the program
// through run_javascript (asking for progress, which it prints on stderr as it arrives: the
// program's console output and tool calls), prints what the model would read, and closes the server.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { fileURLToPath } from 'node:url'

const server = fileURLToPath(new URL('../dist/server.js', import.meta.url))
const config = fileURLToPath(new URL('./config.json', import.meta.url))
const code =
  process.argv[2] ??
  'const items = await demo.list_items({})\nconsole.log(`${items.length} items`)\nconst { sum } = await demo.add({ a: items[0].id, b: items[2].id })\nreturn { names: items.map((item) => item.name), sum }'

const client = new Client({ name: 'cordon-mcp-try-it', version: '0.0.0' })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, '--config', config] }))
try {
  const result = await client.callTool({ name: 'run_javascript', arguments: { code } }, undefined, {
    onprogress: ({ progress, message }) => console.error(`progress ${progress}: ${message}`),
  })
  for (const block of result.content) if (block.type === 'text') console.log(block.text)
  process.exitCode = result.isError ? 1 : 0
} finally {
  await client.close()
}
