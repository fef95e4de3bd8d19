/**
 * A page with cordon in real headless Chromium (Debian's `chromium`, driven by playwright-core; no
 * browser download): the page's script is bundled by esbuild from the packages' browser builds,
 * served with web-worker.js, quickjs-wasi.wasm and the engine image beside it, by a small server
 * that can make the page cross-origin isolated (COOP/COEP headers, hence SharedArrayBuffer).
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'

/** The backend's browser build, as installed (workspace link here, node_modules for a user). */
const DIST_BROWSER = join(dirname(createRequire(import.meta.url).resolve('@cordon/backend-quickjs/package.json')), 'dist-browser')
/** What the browser build fetches from beside the page's bundle. */
const BESIDE_THE_BUNDLE = ['web-worker.js', 'quickjs-wasi.wasm', 'quickjs-wasi.image']
const CHROMIUM_PLACES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
}

/** Bundles the test page into a fresh directory; returns it. */
export async function bundleTestPage(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-browser-'))
  await build({
    entryPoints: { page: fileURLToPath(new URL('../page/page-entry.ts', import.meta.url)) },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: dir,
    logLevel: 'error',
  })
  for (const file of BESIDE_THE_BUNDLE) copyFileSync(join(DIST_BROWSER, file), join(dir, file))
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>cordon</title><script type="module" src="./page.js"></script>\n',
  )
  return dir
}

export interface PageServer {
  url: string
  close(): Promise<void>
}

/** Serves `dir`; `isolated` adds the headers that make a page cross-origin isolated. */
export async function servePage(dir: string, { isolated }: { isolated: boolean }): Promise<PageServer> {
  const server = http.createServer((request, response) => {
    const name = (request.url ?? '/').split('?')[0]!.replace(/^\/+/, '') || 'index.html'
    const path = join(dir, name)
    if (name.includes('..') || !existsSync(path)) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(name)] ?? 'application/octet-stream',
      ...(isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {}),
    })
    response.end(readFileSync(path))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

/** Debian's Chromium, headless; fails saying how to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? CHROMIUM_PLACES.find((place) => existsSync(place))
  if (executablePath === undefined) {
    throw new Error("no Chromium found: install Debian's package (apt-get install chromium) or set CHROMIUM_PATH")
  }
  // --no-sandbox: Chromium's own sandbox cannot start as root (CI); the page is ours.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] })
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}
