// Serves dist/ on loopback, cross-origin isolated (COOP/COEP), so a stop reaches a spinning guest
// through shared memory. `node scripts/serve.mjs [port]` (default 5173); `--no-isolation` leaves
// the headers out (stops then end the guest's worker instead).
import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { dirname, extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
}

/** Starts the server; resolves with its URL and a close function. */
export async function servePlayground({
  port = 0,
  isolated = true,
  dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'),
} = {}) {
  const server = http.createServer((request, response) => {
    const name = normalize((request.url ?? '/').split('?')[0]).replace(/^[/\\]+/, '') || 'index.html'
    const path = join(dir, name)
    if (name.startsWith('..') || !existsSync(path)) return response.writeHead(404).end('not found')
    response.writeHead(200, {
      'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
      ...(isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {}),
    })
    response.end(readFileSync(path))
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const port = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 5173)
  const { url } = await servePlayground({ port, isolated: !args.includes('--no-isolation') })
  console.log(`cordon playground: ${url}`)
}
