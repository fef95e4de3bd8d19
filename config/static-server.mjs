// A static file server on loopback for pages under test (tests/browser, apps/playground), that
// can make the page cross-origin isolated (COOP/COEP headers, hence SharedArrayBuffer).
import { existsSync, readFileSync } from 'node:fs'
import http from 'node:http'
import { extname, join, normalize } from 'node:path'

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
}

/** Serves `dir` (`/` is index.html); resolves with its URL and a close function. */
export async function serveStatic({ dir, port = 0, isolated }) {
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
